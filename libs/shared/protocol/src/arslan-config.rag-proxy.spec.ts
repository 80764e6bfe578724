import { parseArslanConfig } from './arslan-config';

describe('[rag] proxy keys (EGRESS-5, CFG-2, CFG-6)', () => {
  const parse = (line: string) => parseArslanConfig(`[rag]\n${line}\n`);

  it('EGRESS-5: accepts http, https, socks5 and socks5h proxy URLs and a proxy_env variable name', () => {
    for (const url of [
      'http://proxy:3128',
      'https://proxy.corp:443',
      'socks5://10.0.0.1:1080',
      'socks5h://p:1080/',
    ]) {
      const parsed = parse(`proxy = "${url}"`);
      expect(parsed).toMatchObject({ ok: true, config: { rag: { proxy: url } } });
    }
    expect(parse('proxy_env = "CORP_PROXY"')).toMatchObject({
      ok: true,
      config: { rag: { proxy_env: 'CORP_PROXY' } },
    });
  });

  it('CFG-6: inline credentials, other schemes, paths and queries are refused without echoing the value', () => {
    for (const url of [
      'http://u:hunter2@proxy:3128',
      'ftp://proxy:21',
      'http://proxy:3128/path',
      'http://proxy:1?x=1',
      'proxy:3128',
    ]) {
      const parsed = parse(`proxy = "${url}"`);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) {
        expect(parsed.problem).toContain('rag.proxy');
        expect(parsed.problem).not.toContain('hunter2');
      }
    }
    expect(parse('proxy_env = "not a name"').ok).toBe(false);
    const both = parse('proxy = "http://p:1"\nproxy_env = "P"');
    expect(both.ok).toBe(false);
  });
});
