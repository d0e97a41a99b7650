/**
 * A folder of .txt/.md files as a corpus, one document a file: id = the path without extension, relative to the
 * folder all documents share; title = the first Markdown heading of a .md file (that line is then left out of the
 * text), else the file name without extension; text = the content, trimmed. The lab (lab/data/custom.ts, after
 * decoding the bytes) and the CLI read folders by this one rule, so both give the same ids.
 */
import type { Corpus } from '../types.ts';
import { CorpusBuilder } from './beir.ts';
import { InputError, quote } from './errors.ts';
import type { ParseResult } from './trec.ts';

/** Longest folder prefix (with trailing slash) every path shares. */
function commonFolder(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  let prefix = paths[0]!.slice(0, paths[0]!.lastIndexOf('/') + 1);
  for (const p of paths) while (prefix && !p.startsWith(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf('/', prefix.length - 2) + 1);
  return prefix;
}

/** "a/b.txt.gz" → "a/b"; a leading dot is part of the name. */
export function withoutExtension(path: string): string {
  const p = path.replace(/\.gz$/i, '');
  const slash = p.lastIndexOf('/');
  const dot = p.lastIndexOf('.');
  return dot > slash + 1 ? p.slice(0, dot) : p;
}

const MD_HEADING = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/;

/** The documents of these files (paths with `/`, texts decoded), in path order. */
export function textDocuments(files: readonly { readonly path: string; readonly text: string }[], label: string): ParseResult<Corpus> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const folder = commonFolder(sorted.map((f) => f.path));
  const builder = new CorpusBuilder(label);
  const seen = new Map<string, string>();
  for (const f of sorted) {
    const id = withoutExtension(f.path.slice(folder.length));
    const prev = seen.get(id);
    if (prev !== undefined)
      throw new InputError(f.path, undefined, `document id ${quote(id)} is also the id of ${prev} (ids are paths without extension)`);
    seen.set(id, f.path);
    let text = f.text;
    let title = withoutExtension(f.path.slice(f.path.lastIndexOf('/') + 1));
    if (/\.(md|markdown)(\.gz)?$/i.test(f.path)) {
      const lines = text.split('\n');
      const at = lines.findIndex((l) => MD_HEADING.test(l));
      if (at >= 0) {
        title = MD_HEADING.exec(lines[at]!)![1]!;
        lines.splice(at, 1);
        text = lines.join('\n');
      }
    }
    builder.line(JSON.stringify({ _id: id, title, text: text.trim() }), seen.size);
  }
  return builder.finish();
}
