/**
 * A written report's parts, whatever its format: sections of captioned tables. sections.ts and agreement.ts
 * build them; markdown.ts, html.ts and latex.ts render them.
 */

export interface Table {
  readonly caption: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Column holds numbers (right-aligned). */
  readonly numeric: readonly boolean[];
}

export interface Section {
  readonly id: string;
  readonly heading: string;
  /** Plain sentences (escaped by the renderer). */
  readonly notes: readonly string[];
  readonly tables: readonly Table[];
}
