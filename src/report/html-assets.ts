/**
 * The report page's inline stylesheet and script. Project-authored and constant: the page's
 * Content-Security-Policy allows exactly these two blocks (by hash) and nothing else, so
 * even a markup injection could neither run script nor load anything from the network.
 */
import { createHash } from 'node:crypto';

/** The page's stylesheet. */
export const REPORT_CSS = `
:root { --pass:#1a7f37; --fail:#cf222e; --err:#9a6700; --muted:#57606a; --bg:#f6f8fa; --line:#d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px; color: #1f2328; }
h1 { margin: 0 0 4px; font-size: 26px; } h2 { font-size: 18px; margin: 24px 0 8px; } h4 { margin: 10px 0 4px; font-size: 13px; }
header.verdict { border-radius: 8px; padding: 16px; color: #fff; }
.v-conformant { background: var(--pass); } .v-not-conformant { background: var(--fail); } .v-inconclusive { background: var(--err); }
header .headline { font-size: 15px; margin: 4px 0 0; }
.coverage { display: flex; flex-wrap: wrap; gap: 16px; margin: 12px 0 0; }
.coverage a.tile { background: rgba(255,255,255,.15); padding: 6px 10px; border-radius: 6px; color: #fff; text-decoration: none; }
.coverage a.tile:hover, .coverage a.tile:focus { background: rgba(255,255,255,.3); outline: 2px solid #fff; }
.coverage b { display: block; font-size: 18px; }
#failures .group { margin: 16px 0; }
article.failure { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
article.failure.l-SHOULD { border-left-color: #bf8700; } article.failure.k-harnessError { border-left-color: var(--err); }
article.failure h3 { font-size: 15px; margin: 2px 0 6px; } article.failure:target { box-shadow: 0 0 0 3px #0969da55; }
.badge { font-size: 11px; border: 1px solid var(--line); border-radius: 10px; padding: 0 6px; vertical-align: middle; }
.allclear { color: var(--pass); font-weight: 600; }
.exchange { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 8px; }
.copyable { margin: 6px 0; } .copyable .bar { display: flex; justify-content: space-between; align-items: center; font-size: 12px; color: var(--muted); padding: 2px 0; }
.copyable pre { max-height: 480px; overflow: auto; }
tr:target td { background: #fff8c5; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg); position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.o { font-weight: 600; white-space: nowrap; }
.o-passed { color: var(--pass); } .o-failed { color: var(--fail); } .o-harnessError { color: var(--err); }
.o-notObservable, .o-disabled { color: var(--muted); }
.reason { color: var(--muted); }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; padding: 8px; background: var(--bg); border-radius: 6px; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 0; }
details { margin: 6px 0; } summary { cursor: pointer; }
details.evidence { border-left: 3px solid var(--fail); padding-left: 8px; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0; } dl.kv dt { color: var(--muted); } dl.kv dd { margin: 0; word-break: break-word; }
tr[hidden] { display: none; }
.note { color: var(--muted); font-size: 12px; }
`;

/** The page's script: outcome/level filters and the curl copy buttons. */
export const REPORT_JS = `
(function () {
  var rows = Array.prototype.slice.call(document.querySelectorAll('#clause-table tbody tr'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter-outcome]'));
  var level = document.getElementById('filter-level');
  var shown = document.getElementById('shown-count');
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.getAttribute('data-filter-outcome')] = b.checked; });
    var lv = level ? level.value : 'all';
    var n = 0;
    rows.forEach(function (r) {
      var ok = on[r.getAttribute('data-outcome')] && (lv === 'all' || r.getAttribute('data-level') === lv);
      r.hidden = !ok;
      if (ok) n++;
    });
    if (shown) shown.textContent = String(n);
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  if (level) level.addEventListener('change', apply);
  function only(problems) {
    boxes.forEach(function (b) { var o = b.getAttribute('data-filter-outcome'); b.checked = !problems || o === 'failed' || o === 'harnessError'; });
    if (level) level.value = 'all';
    apply();
  }
  var pb = document.getElementById('filter-problems');
  var rb = document.getElementById('filter-reset');
  if (pb) pb.addEventListener('click', function () { only(true); });
  if (rb) rb.addEventListener('click', function () { only(false); });
  // A deep link (report.html#IDEM-004) to a row the filters hide shows every row again.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (el && el.hidden) { only(false); el.scrollIntoView(); }
  }
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
  function fallbackCopy(pre) {
    var range = document.createRange();
    range.selectNodeContents(pre);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { document.execCommand('copy'); } catch (e) { /* the text stays selected */ }
  }
  document.addEventListener('click', function (ev) {
    var btn = ev.target;
    if (!btn || !btn.classList || !btn.classList.contains('copy')) return;
    var pre = btn.parentNode.querySelector('pre');
    if (!pre) return;
    var done = function () { btn.textContent = 'Copied'; setTimeout(function () { btn.textContent = 'Copy'; }, 1500); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(pre.textContent).then(done, function () { fallbackCopy(pre); done(); });
    } else { fallbackCopy(pre); done(); }
  });
})();
`;

function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source).digest('base64')}'`;
}

/** The page's Content-Security-Policy: no network at all, only the two inline blocks above. */
export const REPORT_CSP = ["default-src 'none'", `style-src ${cspHash(REPORT_CSS)}`, `script-src ${cspHash(REPORT_JS)}`, 'img-src data:', "base-uri 'none'", "form-action 'none'"].join('; ');
