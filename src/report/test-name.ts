/**
 * The vitest test name of a check: "<checkId> <title> [CLAUSE-001, CLAUSE-002]". Reporters
 * read it back when a test ended without a CheckResult (a crash in a hook), and the Allure
 * setup labels tests from it.
 */

/** What a check's test name says: its check id (first word) and clause ids (trailing brackets). */
export interface ParsedTestName {
  checkId: string;
  /** The suite part of the check id ("auth" in "auth/unknown-key"). */
  suite: string;
  title: string;
  clauses: string[];
}

const TRAILING_IDS = /\[\s*([A-Z]+-\d{3}(?:\s*,\s*[A-Z]+-\d{3})*)\s*\]\s*$/;

/** Parses a check's test name; clauses is empty when the name carries no ids. */
export function parseTestName(name: string): ParsedTestName {
  const trimmed = name.trim();
  const m = TRAILING_IDS.exec(trimmed);
  const clauses = m ? m[1]!.split(',').map((s) => s.trim()) : [];
  const rest = m ? trimmed.slice(0, m.index).trim() : trimmed;
  const space = rest.search(/\s/);
  const checkId = space < 0 ? rest : rest.slice(0, space);
  const title = space < 0 ? '' : rest.slice(space + 1).trim();
  const slash = checkId.indexOf('/');
  return { checkId, suite: slash > 0 ? checkId.slice(0, slash) : '', title, clauses };
}

/** The test name for a check (the inverse of parseTestName). */
export function formatTestName(checkId: string, title: string, clauses: readonly string[]): string {
  return `${checkId} ${title} [${clauses.join(', ')}]`;
}
