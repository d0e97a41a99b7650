/** `fliplab <argv>` in this process: its exit code and what it printed (stdout, stderr). */
import { main } from '../../src/cli/main.ts';

export async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** The headline sentences `fliplab demo` prints (its second paragraph, wrapped at 100 columns), one per candidate. */
export function demoHeadline(stdout: string): string[] {
  return (stdout.split('\n\n')[1] ?? '').replace(/\n {2}/g, ' ').split('\n');
}
