/**
 * The reference target's conformant variants by name: `default` (choices.ts), `alternative`
 * (alternative.ts), `lenient` (lenient.ts) and `extended` (extended.ts). Kept apart from choices.ts so that a variant may
 * be written as the default with some choices changed.
 */
import { ALTERNATIVE } from './alternative.ts';
import { DEFAULT_CHOICES, VARIANT_NAMES, type Choices, type VariantName } from './choices.ts';
import { EXTENDED } from './extended.ts';
import { LENIENT } from './lenient.ts';

/** Every variant by name. */
export const VARIANTS: Readonly<Record<VariantName, Choices>> = { default: DEFAULT_CHOICES, alternative: ALTERNATIVE, lenient: LENIENT, extended: EXTENDED };

/** The choices of a variant; rejects an unknown name with the list of valid ones. */
export function resolveVariant(name: string | undefined): Choices {
  if (name === undefined) return DEFAULT_CHOICES;
  if (!(VARIANT_NAMES as readonly string[]).includes(name)) throw new Error(`unknown variant "${name}"; valid variants: ${VARIANT_NAMES.join(', ')}`);
  return VARIANTS[name as VariantName];
}
