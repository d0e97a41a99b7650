/**
 * What both per-query explorers (flips, and agreement for a collection without judgments) take from the
 * page: the view they show and report patches to (the URL holds it), the query texts, and the loaders of the
 * detail pane.
 */
import type { DetailLoader, ExpansionLoader, ExplainLoader, PassageLoader, ViewState } from '../../types.ts';

export interface ExplorerProps {
  /** Reference run name (as in the analysis). */
  reference: string;
  queryText: (qid: string) => string;
  view: ViewState;
  onview: (patch: Partial<ViewState>) => void;
  loadDetail: DetailLoader;
  loadPassage: PassageLoader;
  explain?: ExplainLoader;
  expansion?: ExpansionLoader;
  /** Row height of the list in px. */
  rowHeight?: number;
  /** List viewport height in px (where there is no layout, e.g. tests); measured when omitted. */
  listHeight?: number;
}
