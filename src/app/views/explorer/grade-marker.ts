/**
 * How a passage's grade is written in the explorer, in words and not colour only: "✓ relevant (grade 2)" at or
 * above the relevance level, "judged (grade 0)" below it, nothing when unjudged; `short` is what a narrow column
 * shows ("✓ 2", "0") while the full marker is read out.
 */
export function gradeMarker(grade: number | null, relevanceLevel: number): { full: string; short: string } {
  if (grade === null) return { full: '', short: '' };
  const relevant = grade >= relevanceLevel;
  return { full: relevant ? `✓ relevant (grade ${grade})` : `judged (grade ${grade})`, short: relevant ? `✓ ${grade}` : String(grade) };
}
