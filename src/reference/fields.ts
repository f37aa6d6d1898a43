/**
 * The field catalogs of the reference target: which person and account fields an edit or an
 * agent run may touch, the context areas, and the partner-CRM field keys for live reads.
 * GET /capabilities publishes all of them.
 */

/** Fields of an account-membership record that graph.apply_update may set. */
export const PERSON_FIELDS = ['title', 'name', 'email', 'phone', 'linkedin_url', 'seniority', 'department'] as const;

/** Firmographic account fields (gap-fill only), with their value type. */
export const ACCOUNT_FIELDS = {
  domain: 'string',
  industry: 'string',
  employee_count: 'integer',
  country: 'string',
  city: 'string',
  founded_year: 'integer',
  description: 'string',
  annual_revenue: 'integer',
} as const;
export type AccountField = keyof typeof ACCOUNT_FIELDS;
export const ACCOUNT_FIELD_NAMES = Object.keys(ACCOUNT_FIELDS) as AccountField[];

/** Context areas an agent run or a context refresh may target (associations are add-only). */
export const CONTEXT_AREAS = ['icp_matches', 'lookalikes', 'competitors', 'technologies', 'news', 'relationships'] as const;

/** Partner-CRM objects and their readable property keys (the field catalog of POST /query). */
export const CRM_FIELDS = {
  company: ['name', 'domain', 'industry', 'numberofemployees', 'country', 'city', 'lifecyclestage', 'annualrevenue'],
  contact: ['firstname', 'lastname', 'email', 'jobtitle', 'phone', 'lifecyclestage', 'company'],
  deal: ['dealname', 'amount', 'dealstage', 'closedate', 'pipeline', 'dealtype'],
} as const;
export type CrmObject = keyof typeof CRM_FIELDS;

/** POST /query operations and the CRM object each reads. */
export const QUERY_OPERATIONS: Record<string, CrmObject> = {
  'crm.read_partner_company_properties': 'company',
  'crm.read_partner_contact_properties': 'contact',
  'crm.read_partner_deal_properties': 'deal',
};

/** Agent runs read at most this many recent source excerpts per account (seed part 8). */
export const EXCERPTS_PER_ACCOUNT = 12;
export const MAX_AGENT_ACCOUNTS = 20;
export const MAX_AGENT_CONTACTS = 100;
