/** The deployment version a draft run carries: deployments count from 1. */
export const draftVersion = 0;
