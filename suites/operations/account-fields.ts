/**
 * Account firmographic fields are gap-fill only (4.8, graph.apply_update rule 1; OPS-007). The
 * change kind that edits account fields is not shown in the document; the live catalog lists it
 * (part 9 rule 2), so the check finds it there: a change kind of graph.apply_update whose name
 * speaks of an account and a field. Its change object is formed as 4.8 forms person_field's
 * (kind, target_label, field, after), the account named by customer_id.
 *
 * First a field the account leaves empty is filled (the control: it shows the change form works
 * and is applied once the receipt is finished); then the domain, which the control protocol
 * filled when it made the account, is changed. Without the control, the domain left as it was
 * is not observable, and the domain changed is a finding all the same. The read-back of the account (GET
 * /data/accounts/{id}, layout not shown: every object under it carrying the field counts) must
 * still hold the old domain and nowhere the new one. A target may refuse the second edit, skip
 * it in its receipt or accept it and leave the field: all keep the field as it was.
 */
import type { CheckDef } from '../../src/engine/check.ts';
import { NotObservable } from '../../src/engine/finding.ts';
import type { Exchange } from '../../src/http/exchange.ts';
import { applyUpdate, applyUpdateKinds, kindNamed, submitAndSettle } from '../_shared/change-kinds.ts';
import { is2xx } from '../_shared/definitions.ts';
import { brief, findObjects } from '../_shared/json.ts';
import { usableResponses } from '../_shared/ops-usable.ts';

/** The filled field: the control protocol sets an account's domain when it makes one. */
const FILLED = 'domain';
/** Fields an account may leave empty, tried in this order where the catalog lists fields. */
const GAP_FIELDS = ['industry', 'city', 'country', 'description'];

/** Whether any object in the read carries `field` with `value` (case-insensitive for strings). */
function holds(read: Exchange, field: string, value: string): boolean {
  const want = value.toLowerCase();
  return findObjects(read.response?.json, (o) => typeof o[field] === 'string' && (o[field] as string).toLowerCase() === want).length > 0;
}

export const accountFieldsGapFill: CheckDef = {
  id: 'operations/account-fields-gap-fill',
  title: 'An apply_update account-field change fills an empty firmographic field and leaves a filled one as it was (the change kind read from the live catalog)',
  clauses: ['OPS-007'],
  endpoints: ['submitOperation', 'getAccount'],
  needs: { control: true, mutation: true },
  // The two accepted submissions and two account reads (the catalog and the receipt polls are free).
  credits: 4,
  maxCredits: 4,
  async run(ctx) {
    ctx = usableResponses(ctx, 'OPS-007');
    const key = ctx.key('owner');
    const kind = kindNamed(await applyUpdateKinds(ctx, key), [/account/i, /field/i], 'account-field');
    const listed = kind.fields;
    if (listed !== null && !listed.includes(FILLED))
      throw new NotObservable(`the live catalog's ${kind.kind} lists no ${FILLED} field (it lists ${listed.join(', ')}), the one field the control protocol fills`);
    const gap = listed === null ? GAP_FIELDS[0]! : GAP_FIELDS.find((f) => listed.includes(f));
    if (gap === undefined) throw new NotObservable(`the live catalog's ${kind.kind} lists none of ${GAP_FIELDS.join(', ')}, fields a new account leaves empty`);

    const before = `${ctx.run.prefix}filled.example.com`.toLowerCase();
    const { accountId } = await ctx.control.createAccount(ctx.workspaceId, { name: `${ctx.run.prefix}gap-fill`, domain: before });
    const change = (field: string, after: string) => ({ kind: kind.kind, target_label: field, field, after });
    const read = () => ctx.api.send({ method: 'GET', path: `/data/accounts/${accountId}`, key });

    const filling = `Conformance ${gap}`;
    const fill = await submitAndSettle(ctx, key, applyUpdate(accountId, `fill the empty ${gap}`, [change(gap, filling)]));
    if (!fill.accepted)
      throw new NotObservable(`filling the empty ${gap} with ${kind.kind} was not accepted (${fill.submitted.response?.status ?? fill.submitted.error?.kind}), so the change form is not established`);
    if (!fill.finished) throw new NotObservable(`the receipt of filling the empty ${gap} was not seen finished, so when its effect shows is unknown`);
    const filled = await read();
    if (!is2xx(filled)) throw new NotObservable(`the account read after the fill answered ${filled.response?.status ?? filled.error?.kind}`);
    if (!holds(filled, FILLED, before)) throw new NotObservable(`the account read shows no ${FILLED} ${before}, the value the control protocol filled`);
    // The fill not shown: the change form, or when a change applies (after an approval the
    // document does not show), is not established, so a filled field left as it was proves
    // nothing; a filled field changed is a finding all the same.
    const established = holds(filled, gap, filling);

    const after = `${ctx.run.prefix}changed.example.com`.toLowerCase();
    const overwrite = await submitAndSettle(ctx, key, applyUpdate(accountId, `change the filled ${FILLED}`, [change(FILLED, after)]));
    if (overwrite.accepted && !overwrite.finished) throw new NotObservable(`the receipt of changing the filled ${FILLED} was not seen finished`);
    const reread = await read();
    if (!is2xx(reread)) throw new NotObservable(`the account read after the change answered ${reread.response?.status ?? reread.error?.kind}`);
    const changed = holds(reread, FILLED, after) || !holds(reread, FILLED, before);
    if (!established && !changed)
      throw new NotObservable(`filling the empty ${gap} finished but the account read does not show it (${brief(filled.response?.json)}), so the change form is not established`);
    ctx.judged('OPS-007');
    if (changed) {
      ctx.softFail({
        clause: 'OPS-007',
        message: `a ${kind.kind} change to the filled firmographic field ${FILLED} changed it`,
        expected: `${FILLED} still ${before} (gap-fill only)`,
        received: brief(findObjects(reread.response?.json, (o) => FILLED in o).map((o) => o[FILLED])),
        exchange: reread,
        context: [overwrite.submitted, ...(overwrite.last ? [overwrite.last] : []), filled],
      });
    }
  },
};
