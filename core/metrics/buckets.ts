/** The time buckets of the metrics route: UTC hours and UTC days, named by their ISO start. */

export type MetricsBucket = 'hour' | 'day';

const lengthInMs: Record<MetricsBucket, number> = { hour: 3_600_000, day: 86_400_000 };

/** The start of the bucket `time` falls in (UTC), in milliseconds. */
export function bucketStartInMs(timeInMs: number, bucket: MetricsBucket): number {
  return timeInMs - (((timeInMs % lengthInMs[bucket]) + lengthInMs[bucket]) % lengthInMs[bucket]);
}

/** The ISO start of the hour an ISO time falls in: the key a run is counted under. */
export function hourOf(isoTime: string): string {
  return new Date(bucketStartInMs(Date.parse(isoTime), 'hour')).toISOString();
}

/** The starts of the buckets that overlap [fromInMs, toInMs), in time order. */
export function bucketStarts(fromInMs: number, toInMs: number, bucket: MetricsBucket): number[] {
  const starts: number[] = [];
  for (let start = bucketStartInMs(fromInMs, bucket); start < toInMs; start += lengthInMs[bucket])
    starts.push(start);
  return starts;
}

export function bucketLengthInMs(bucket: MetricsBucket): number {
  return lengthInMs[bucket];
}
