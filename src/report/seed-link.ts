/**
 * Links from a clause to its section of the seed (the API document). A clause's `ref` starts
 * with the section number ("5 rule 4", "4.4 table: name"); the anchor is the GitHub-style
 * slug of that section's heading, read from the seed's own headings, never restated here.
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where the seed lives, and optionally its Markdown text (to resolve section anchors). */
export interface SeedDocument {
  /** URL or path of the seed document, e.g. a repository URL of service-api-v1-beta.md. */
  url: string;
  /** The seed's Markdown; without it links point at the document, not the section. */
  markdown?: string;
}

/** The section number a seed reference starts with ("4.4 table: name" → "4.4"), or null. */
export function seedSection(ref: string): string | null {
  const m = /^\s*(\d+(?:\.\d+)*)/.exec(ref);
  return m ? m[1]! : null;
}

/** GitHub's heading slug: lower case, punctuation dropped, spaces to dashes. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Section number → heading anchor, for every numbered heading of a Markdown document. */
export function sectionAnchors(markdown: string): Map<string, string> {
  const anchors = new Map<string, string>();
  const seen = new Map<string, number>();
  for (const line of markdown.split(/\r?\n/)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    let slug = headingSlug(m[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    if (count > 0) slug = `${slug}-${count}`;
    const num = /^(\d+(?:\.\d+)*)\.?\s/.exec(m[1]!);
    if (num && !anchors.has(num[1]!)) anchors.set(num[1]!, slug);
  }
  return anchors;
}

/**
 * Builds the link function for a run: the seed URL plus the anchor of the closest numbered
 * section of the reference (falling back to the parent section, then to the document).
 */
export function seedLinker(doc: SeedDocument | undefined): (ref: string) => string | null {
  if (!doc) return () => null;
  const anchors = doc.markdown ? sectionAnchors(doc.markdown) : new Map<string, string>();
  return (ref) => {
    let section = seedSection(ref);
    while (section) {
      const anchor = anchors.get(section);
      if (anchor) return `${doc.url}#${anchor}`;
      const dot = section.lastIndexOf('.');
      section = dot > 0 ? section.slice(0, dot) : null;
    }
    return doc.url;
  };
}

/** Where the seed document ships beside the suite (the API document the catalog encodes). */
export const BUNDLED_SEED_RELATIVE = '../shared/seed/service-api-v1-beta.md';

/**
 * The seed document of a run: its Markdown (for section anchors) from the copy shipped beside
 * the suite, linked at `seedUrl` when given (where the document is published), else at that
 * copy's file: URL. Undefined when neither exists.
 */
export function bundledSeedDocument(packageRoot: string, seedUrl?: string, read: (path: string) => string | undefined = readIfPresent): SeedDocument | undefined {
  const path = resolvePath(packageRoot, BUNDLED_SEED_RELATIVE);
  const markdown = read(path);
  if (seedUrl) return markdown === undefined ? { url: seedUrl } : { url: seedUrl, markdown };
  return markdown === undefined ? undefined : { url: pathToFileURL(path).href, markdown };
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
