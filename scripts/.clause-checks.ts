import { discoverSuites, loadSuiteDefs } from '../src/engine/discover.ts';
const suites = await loadSuiteDefs(await discoverSuites(process.cwd() + '/suites'), process.cwd());
const checks = suites.flatMap((s) => s.checks);
for (const c of process.argv.slice(2))
  console.log(
    c,
    checks
      .filter((k) => k.clauses.includes(c))
      .map((k) => k.id)
      .join(' '),
  );
