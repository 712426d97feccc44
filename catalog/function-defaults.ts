/**
 * What a function of the route table gets when its entry names no memory or time-out: the CDK
 * stacks deploy it so, and the local server gives its handlers (and the cost model bills) the same.
 */
export const defaultMemoryInMb = 256;
export const defaultTimeoutInSeconds = 10;
