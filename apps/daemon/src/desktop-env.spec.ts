import { scrubInheritedEnv } from './desktop-env';

describe('desktop mode environment (ARCH-11)', () => {
  it('ARCH-11: drops inherited variables that could weaken auth, TLS, proxies or redirect data; keeps the shell basics', () => {
    const env: NodeJS.ProcessEnv = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      ARSLAN_NO_AUTH: '1',
      ARSLAN_BIND: '0.0.0.0',
      XDG_DATA_HOME: '/tmp/elsewhere',
      NODE_TLS_REJECT_UNAUTHORIZED: '0',
      HTTPS_PROXY: 'http://proxy',
      NODE_OPTIONS: '--require /tmp/x.js',
    };
    expect(scrubInheritedEnv(env).sort()).toEqual([
      'ARSLAN_BIND',
      'ARSLAN_NO_AUTH',
      'HTTPS_PROXY',
      'NODE_OPTIONS',
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'XDG_DATA_HOME',
    ]);
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/u' });
  });
});
