/**
 * Escaping of user-controlled text (run names, collection names, query ids, titles) for the HTML and
 * Markdown reports. Nothing a user typed or a file contained is ever written unescaped.
 */

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text → HTML text or attribute value (quotes included, so it is safe in both). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]!);
}

/**
 * Text → Markdown inline text that renders literally: HTML-significant characters become entities
 * (renderers pass raw HTML through, and this also defeats <autolinks>); emphasis, code, strike-through
 * and the table pipe are backslash-escaped, and so is a "]" that would close a link ("](", "][", "]:");
 * line breaks become spaces so a value can never end a table row. Text is only ever placed after fixed
 * words or inside table cells, so line-start syntax (#, -, reference definitions) cannot arise.
 */
export function escapeMarkdown(s: string): string {
  return s
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/[\\`*_|~]/g, (c) => `\\${c}`)
    .replace(/\](?=[([:])/g, '\\]')
    .replace(/[&<>]/g, (c) => HTML_ENTITIES[c]!);
}

/** A Markdown link target (file name) that cannot break out of `(...)`. */
export function markdownUrl(s: string): string {
  return encodeURI(s).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Text for LaTeX: the ten special characters escaped (a name like `bm25_k1=0.9` stays readable, never a macro). */
export function escapeLatex(s: string): string {
  return s.replace(/[\\{}&%$#_^~]/g, (c) => {
    switch (c) {
      case '\\':
        return '\\textbackslash{}';
      case '^':
        return '\\textasciicircum{}';
      case '~':
        return '\\textasciitilde{}';
      default:
        return `\\${c}`;
    }
  });
}
