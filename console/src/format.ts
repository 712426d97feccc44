/** How the console writes durations, costs, times and statuses. */

export function formatDuration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatCost(usd: number | undefined | null): string {
  if (usd === undefined || usd === null) return '–';
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

export function formatTime(iso: string | undefined | null): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** A log level or span status as the console names it: words, never colour alone. */
export function statusName(status: string | undefined): 'Success' | 'Error' | 'Running' | 'Skipped' | string {
  switch (status) {
    case 'info':
    case 'success':
      return 'Success';
    case 'error':
      return 'Error';
    case 'running':
      return 'Running';
    case 'skipped':
    case 'cancelled':
      return status === 'skipped' ? 'Skipped' : 'Cancelled';
    default:
      return status ?? '–';
  }
}

export function statusIcon(status: string | undefined): string {
  switch (statusName(status)) {
    case 'Success':
      return '✓';
    case 'Error':
      return '✕';
    case 'Running':
      return '…';
    default:
      return '•';
  }
}
