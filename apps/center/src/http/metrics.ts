// A tiny Prometheus text registry (no prom-client in the pinned set): counters and a
// latency histogram per route, plus gauges computed at scrape time.
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function labels(obj: Record<string, string>): string {
  const parts = Object.entries(obj).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  );
  return parts.length ? `{${parts.join(',')}}` : '';
}

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly durations = new Map<string, Histogram>();
  private readonly started = Date.now();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = labels({ method, route, status: String(status) });
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const hkey = JSON.stringify([method, route]);
    const h = this.durations.get(hkey) ?? { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) h.counts[i] = (h.counts[i] ?? 0) + 1;
    });
    h.sum += seconds;
    h.count += 1;
    this.durations.set(hkey, h);
  }

  render(gauges: Record<string, { help: string; value: number }>): string {
    const out: string[] = [];
    out.push('# HELP arslan_center_http_requests_total HTTP requests by method, route and status.');
    out.push('# TYPE arslan_center_http_requests_total counter');
    for (const [k, v] of this.requests) out.push(`arslan_center_http_requests_total${k} ${v}`);
    out.push('# HELP arslan_center_http_request_duration_seconds HTTP request latency.');
    out.push('# TYPE arslan_center_http_request_duration_seconds histogram');
    for (const [k, h] of this.durations) {
      const [method, route] = JSON.parse(k) as [string, string];
      BUCKETS.forEach((b, i) =>
        out.push(
          `arslan_center_http_request_duration_seconds_bucket${labels({ method, route, le: String(b) })} ${h.counts[i]}`,
        ),
      );
      out.push(
        `arslan_center_http_request_duration_seconds_bucket${labels({ method, route, le: '+Inf' })} ${h.count}`,
      );
      out.push(`arslan_center_http_request_duration_seconds_sum${labels({ method, route })} ${h.sum}`);
      out.push(`arslan_center_http_request_duration_seconds_count${labels({ method, route })} ${h.count}`);
    }
    const all = {
      ...gauges,
      arslan_center_uptime_seconds: {
        help: 'Seconds since start.',
        value: (Date.now() - this.started) / 1000,
      },
    };
    for (const [name, g] of Object.entries(all)) {
      out.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`, `${name} ${g.value}`);
    }
    return `${out.join('\n')}\n`;
  }
}
