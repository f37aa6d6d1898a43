/**
 * Output of the report commands (diff, merge, verify-bundle). Injected so tests capture it;
 * the default writes to the process streams.
 */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** Writes to stdout and stderr. */
export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};
