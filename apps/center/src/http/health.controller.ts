// Probes and metrics: public by design (no secrets, no content).
import { Controller, Get, Header, HttpCode, Inject } from '@nestjs/common';
import { CenterError } from '@arslan/center-domain';
import { CENTER_CONTEXT, type CenterContext } from './center-context';
import { Public } from './route-policy';
import { ApiDoc } from '../openapi/api-doc';
import * as S from '../openapi/api-schemas';

@Controller()
export class HealthController {
  constructor(@Inject(CENTER_CONTEXT) private readonly ctx: CenterContext) {}

  @Get('livez')
  @Public('liveness probe')
  @ApiDoc({ operationId: 'livez', summary: 'Liveness probe', response: S.Livez })
  livez(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public('readiness probe: checks the database')
  @HttpCode(200)
  @ApiDoc({ operationId: 'readyz', summary: 'Readiness probe (pings the database)', response: S.Readyz })
  async readyz(): Promise<{ status: 'ok'; database: string }> {
    try {
      await this.ctx.store.ping();
    } catch {
      throw new CenterError('audit_unavailable', 'database unreachable');
    }
    return { status: 'ok', database: this.ctx.store.provider };
  }

  @Get('metrics')
  @Public('Prometheus scrape; counts only')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiDoc({
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    response: S.MetricsText,
    contentType: 'text/plain',
  })
  async metrics(): Promise<string> {
    const now = Date.now();
    const active = await this.ctx.store.read((r) => r.countActiveGrants(now));
    return this.ctx.metrics.render({
      arslan_center_active_grants: { help: 'Grants not expired (GRANT-9 limit 10000).', value: active },
      arslan_center_locked: { help: '1 while the Center is locked.', value: this.ctx.lock.locked ? 1 : 0 },
    });
  }
}
