/**
 * graph.agent_preview (seed 4.8 and the agent run scope of part 8): a preview of explicit
 * accounts quotes its five fields, and a preview beyond 20 accounts is not quoted. The quote's
 * place is not shown, so it is searched in the answer and in the polled receipt.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { describeResponse } from '../../src/engine/expect.ts';
import { Finding, NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief } from '../_shared/json.ts';
import { describeBound } from '../../src/engine/waits.ts';
import {
  AGENT_CALL_CREDITS,
  AGENT_CALL_MAX_CREDITS,
  agentPreviewBody,
  isQuoted,
  makeAccount,
  makeAccounts,
  previewAndQuote,
  QUOTE_BOUND_MS,
  QUOTE_FIELDS,
  QUOTE_NUMBERS,
  QUOTE_PATIENCE_MS,
  QUOTE_STRINGS,
  submitOperation,
} from '../_shared/ops-fixtures.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

const received = (ex: Exchange): string => (ex.response ? describeResponse(ex.response) : `no response (${ex.error?.kind}: ${ex.error?.message})`);

/** The most accounts one agent batch may hold (seed part 8, agent run scope). */
const MAX_ACCOUNTS = 20;

export const previewQuotes: CheckDef = {
  id: 'operations/preview-quotes',
  title: 'An agent preview of explicit accounts quotes three credit figures as numbers and the label and model as strings',
  clauses: ['OPS-004'],
  needs: { control: true, mutation: true },
  // The preview; polling its receipt is free.
  credits: AGENT_CALL_CREDITS,
  // Its fee charged on top.
  maxCredits: AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-004');
    const fx = await makeAccount(ctx, 'ops-preview');
    const { submitted, polls, quote, receiptFound, waitedMs } = await previewAndQuote(ctx, ctx.key('agent'), [fx.accountId], { patienceMs: QUOTE_PATIENCE_MS });
    if (!is2xx(submitted)) throw new NotObservable(`the preview was refused (${received(submitted)}); the seed shows only the argument names, so no quote could be observed`);
    const last = polls[polls.length - 1] ?? submitted;
    const missing = QUOTE_FIELDS.filter((f) => !(f in quote));
    const mistyped = [
      ...QUOTE_NUMBERS.filter((f) => f in quote && (typeof quote[f] !== 'number' || !Number.isFinite(quote[f]))),
      ...QUOTE_STRINGS.filter((f) => f in quote && typeof quote[f] !== 'string'),
    ];
    ctx.judged('OPS-004');
    if (missing.length === 0 && mistyped.length === 0) return;
    const where = receiptFound
      ? `the answer and ${polls.length} polls of the receipt over ${(waitedMs / 1000).toFixed(1)} s (the wait for a quote: ${describeBound(ctx.run, QUOTE_BOUND_MS)})`
      : 'the answer (it names no receipt to poll)';
    throw new Finding({
      clause: 'OPS-004',
      message: [missing.length ? `${missing.join(', ')} not found in ${where}` : '', mistyped.length ? `${mistyped.join(', ')} of the wrong type` : ''].filter(Boolean).join('; '),
      expected: `${QUOTE_NUMBERS.join(', ')} as numbers; ${QUOTE_STRINGS.join(', ')} as strings`,
      received: brief(quote, 500),
      exchange: last,
      ...(last !== submitted ? { context: [submitted] } : {}),
    });
  },
};

export const oversizedPreviewNotQuoted: CheckDef = {
  id: 'operations/oversized-preview-not-quoted',
  title: 'An agent preview of more than 20 accounts is not quoted (refused, or finished without a quote)',
  clauses: ['OPS-005'],
  needs: { control: true, mutation: true },
  // The preview at the limit, which shows the request shape is accepted; the oversized one is
  // refused on the reference (free).
  credits: AGENT_CALL_CREDITS,
  // Fees on top; a target may accept the oversized preview and never price it.
  maxCredits: 2 * AGENT_CALL_MAX_CREDITS,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-005');
    const agent = ctx.key('agent');
    const ids = await makeAccounts(ctx, MAX_ACCOUNTS + 1);
    const atLimit = await submitOperation(ctx, agent, agentPreviewBody(ids.slice(0, MAX_ACCOUNTS)));
    if (!is2xx(atLimit)) throw new NotObservable(`a preview of ${MAX_ACCOUNTS} accounts was refused (${received(atLimit)}), so a refusal of ${MAX_ACCOUNTS + 1} would say nothing`);
    // The same patience as OPS-004: a quote may come as late as the one OPS-004 waits for, so
    // a shorter wait would pass a server that quotes the oversized scope a little later.
    // Polling stops early once the receipt shows the preview finished.
    const over = await previewAndQuote(ctx, agent, ids, { until: isQuoted, patienceMs: QUOTE_PATIENCE_MS, stopWhenFinished: true });
    const status = over.submitted.response?.status;
    if (status !== undefined && status >= 400 && status < 500 && ![401, 403, 429].includes(status)) {
      // Refused: not quoted.
      ctx.judged('OPS-005');
      return;
    }
    if (!is2xx(over.submitted)) throw new NotObservable(`the oversized preview was answered ${received(over.submitted)}, which is neither a refusal of the scope nor an acceptance`);
    const last = over.polls[over.polls.length - 1] ?? over.submitted;
    if (isQuoted(over.quote)) {
      throw new Finding({
        clause: 'OPS-005',
        message: `a preview of ${ids.length} accounts was quoted`,
        expected: `a refusal, or no quote: the agent run scope is at most ${MAX_ACCOUNTS} accounts`,
        received: brief(over.quote, 500),
        exchange: last,
        context: [atLimit, ...(last !== over.submitted ? [over.submitted] : [])],
      });
    }
    // Accepted and not quoted: only a preview seen to finish was never priced.
    if (over.finished) {
      ctx.judged('OPS-005');
      return;
    }
    if (!over.receiptFound) throw new NotObservable('the oversized preview was accepted and names no receipt, so whether it is quoted later cannot be seen');
    throw new NotObservable(
      `the oversized preview was accepted and its receipt showed neither a quote nor a finished state in ${over.polls.length} polls over ${(over.waitedMs / 1000).toFixed(1)} s ` +
        `(the wait for a quote: ${describeBound(ctx.run, QUOTE_BOUND_MS)}); last answer ${received(last)}`,
    );
  },
};
