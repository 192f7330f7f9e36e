import { z } from 'zod';

/** A UTC instant in ISO 8601 with `Z` and no offset, as `Date.prototype.toISOString` writes it. */
export const IsoTimeSchema = z.iso.datetime({ offset: false });
