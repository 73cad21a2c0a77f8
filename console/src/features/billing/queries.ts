import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { API_BASE, api, unwrap } from '../../api/client';
import type { Result } from '../../api/answers';

export type BillingPage = Result<'getBilling'>;
export type BillingRecord = BillingPage['records'][number];
export type SessionTotal = BillingPage['sessions'][number];

/** The page sizes GET /billing takes (the API refuses others), and the route's default. */
export const BILLING_PAGE_SIZES = [10, 20, 50, 100] as const;
export type BillingPageSize = (typeof BILLING_PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: BillingPageSize = 20;

/** Every record of the caller's scope as CSV: a plain link, so the browser downloads it with the cookie. */
export const BILLING_CSV_URL = `${API_BASE}/billing/csv`;

/**
 * GET /billing: one page of records (paged by the server) with the per-session and overall
 * totals. The scope is the current organization's (administrators) or the caller's own, so the
 * organization is part of the key (undefined: not known yet; null: none, nothing is asked). The previous page stays on screen while the next loads.
 */
export function useBilling(organization: string | null | undefined, page: number, pageSize: BillingPageSize) {
  return useQuery({
    // Wait for the person (and their current organization) so the first page loads once; without
    // a current organization there is nothing to read (the route answers 500 then).
    enabled: typeof organization === 'string',
    queryKey: ['billing', organization ?? '', page, pageSize] as const,
    queryFn: () => unwrap(api.GET('/billing', { params: { query: { page, page_size: pageSize } } })),
    placeholderData: keepPreviousData,
  });
}
