import { MAX_CARD_GRAPH_NODES } from '@arslan/protocol';
import { filesContaining, fastTestKdf, tempDataDir } from './test-only-support';
import { type LocalVaultService, createVaultService } from './vault-service';
import { cardIndexBody, secretMarkerLabels, withoutSecretMarkers } from './card-content';
import { utf8Encode } from '@arslan/util';

const PW = 'cards password';
let s: LocalVaultService;
let dir: string;

beforeEach(async () => {
  dir = tempDataDir();
  s = createVaultService(dir, { kdf: fastTestKdf });
  await s.init(PW);
});
afterEach(() => s.close());

const code = (c: string) => expect.objectContaining({ code: c });

describe('card content rules', () => {
  it('markers: labels are parsed; malformed markers are bad_request; removal leaves no marker text', () => {
    expect(secretMarkerLabels('user {{secret:pw}} and {{secret:api.key}}')).toEqual(['pw', 'api.key']);
    expect(() => secretMarkerLabels('{{secret:Bad Label}}')).toThrow(code('bad_request'));
    expect(() => secretMarkerLabels('dangling {{secret:pw')).toThrow(code('bad_request'));
    expect(() => secretMarkerLabels('{{secret:{{secret:pw}}')).toThrow(code('bad_request'));
    expect(withoutSecretMarkers('a {{secret:pw}} b {{secret:x')).toBe('a  b x');
    expect(
      cardIndexBody('pw: {{secret:pw}}', {
        fields: { user: 'bob', token: '{{secret:t}}' },
        links: [],
        secrets: {},
      }),
    ).toBe('pw: \nbob');
  });
});

describe('cards (MCP-5, MCP-11..13, OTP-9/10)', () => {
  it('card_write creates and updates a card: omitted body/fields keep their value, empty string clears (OTP-9)', async () => {
    const c = s.cardWrite(
      { title: 'Router', body: 'the home router', fields: { ip: '10.0.0.1', model: 'X' } },
      'terminal',
    );
    expect(c.vault).toBe('personal');
    expect(s.assetKind(undefined, c.card_id)).toBe('card');
    const u = s.cardWrite(
      { card_id: c.card_id, title: 'Router 2', fields: { model: '', floor: '1' } },
      'terminal',
    );
    expect(u.card_id).toBe(c.card_id);
    s.lock();
    await s.unlock(PW);
    expect(s.read({ asset_id: c.card_id })).toMatchObject({
      kind: 'card',
      title: 'Router 2',
      body: 'the home router',
      fields: { ip: '10.0.0.1', floor: '1' },
      links: [],
      secret_labels: [],
    });
    s.cardWrite({ card_id: c.card_id, title: 'Router 2', body: '' }, 'terminal');
    expect(s.read({ asset_id: c.card_id }).body).toBe('');
    expect(s.list({}).assets[0]).toMatchObject({ kind: 'card', title: 'Router 2' });
    expect(s.history({ asset_id: c.card_id }).revisions).toHaveLength(3);
  });

  it('card_write errors: unknown card not_found, a memory is not a card, plain write to a card is refused', () => {
    const mem = s.write({ title: 'm', body: 'b' });
    expect(() => s.cardWrite({ card_id: 'e'.repeat(32), title: 'x' }, 'terminal')).toThrow(code('not_found'));
    expect(() => s.cardWrite({ card_id: mem.asset_id, title: 'x' }, 'terminal')).toThrow(code('bad_request'));
    const c = s.cardWrite({ title: 'c' }, 'terminal');
    expect(() => s.write({ asset_id: c.card_id, title: 'x', body: 'y' })).toThrow(code('bad_request'));
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, 'v']));
    expect(() => s.cardWrite({ title: 'c', fields: tooMany }, 'terminal')).toThrow(code('bad_request'));
    expect(() => s.cardWrite({ title: 'c', fields: { big: 'x'.repeat(4097) } }, 'terminal')).toThrow(
      code('bad_request'),
    );
  });

  it('terminal secrets become credential assets; markers must name a label; read shows labels only (MCP-11)', () => {
    const body = 'login as bob with {{secret:pw}}';
    const c = s.cardWrite(
      {
        title: 'Bank',
        body,
        fields: { otp: '{{secret:otp_seed}}' },
        secrets: { pw: 'hunter2', otp_seed: 'JBSWY3DP' },
      },
      'terminal',
    );
    const read = s.read({ asset_id: c.card_id });
    expect(read.body).toBe(body); // MCP-11: literal marker
    expect(read.fields).toEqual({ otp: '{{secret:otp_seed}}' });
    expect(read.secret_labels).toEqual(['otp_seed', 'pw']);
    expect(JSON.stringify(read)).not.toMatch(/hunter2|JBSWY3DP/);
    const creds = s.list({}).assets.filter((a) => a.kind === 'credential');
    expect(creds.map((a) => a.title).sort()).toEqual(['Bank / otp_seed', 'Bank / pw']);
    for (const cred of creds) expect(() => s.read({ asset_id: cred.asset_id })).toThrow(code('forbidden'));
    // the secret value is sealed at rest
    expect(filesContaining(dir, utf8Encode('hunter2'))).toEqual([]);

    // a new value for a mapped label is a new revision of the same credential
    s.cardWrite({ card_id: c.card_id, title: 'Bank', secrets: { pw: 'hunter3' } }, 'terminal');
    const after = s.list({}).assets.filter((a) => a.kind === 'credential');
    expect(after.map((a) => a.asset_id).sort()).toEqual(creds.map((a) => a.asset_id).sort());
    const pwCred = after.find((a) => a.title === 'Bank / pw');
    expect(s.history({ asset_id: pwCred!.asset_id }).revisions).toHaveLength(2);

    // unknown label in a marker
    expect(() => s.cardWrite({ title: 'x', body: '{{secret:nope}}' }, 'terminal')).toThrow(
      code('bad_request'),
    );
    expect(() =>
      s.cardWrite({ card_id: c.card_id, title: 'Bank', fields: { f: '{{secret:other}}' } }, 'terminal'),
    ).toThrow(code('bad_request'));
    expect(() => s.cardWrite({ title: 'x', secrets: { 'Bad Label': 'v' } }, 'terminal')).toThrow(
      code('bad_request'),
    );
    // an empty value unmaps the label (only when no marker still names it) and deletes its credential
    expect(() => s.cardWrite({ card_id: c.card_id, title: 'Bank', secrets: { pw: '' } }, 'terminal')).toThrow(
      code('bad_request'),
    );
    s.cardWrite(
      { card_id: c.card_id, title: 'Bank', body: 'no secret here', secrets: { pw: '' } },
      'terminal',
    );
    expect(s.read({ asset_id: c.card_id }).secret_labels).toEqual(['otp_seed']);
    expect(s.list({ include_deleted: true }).assets.find((a) => a.asset_id === pwCred!.asset_id)?.state).toBe(
      'deleted',
    );
  });

  it('MCP-12: the mcp surface has no secret map, cannot touch cards with secret references, cannot write markers', () => {
    const plain = s.cardWrite({ title: 'Plain', body: 'b', fields: { a: '1' } }, 'mcp');
    expect(s.read({ asset_id: plain.card_id })).toMatchObject({ body: 'b', fields: { a: '1' } });
    s.cardWrite({ card_id: plain.card_id, title: 'Plain 2', fields: { b: '2' } }, 'mcp');
    expect(s.read({ asset_id: plain.card_id }).fields).toEqual({ a: '1', b: '2' });

    const secretArgs = { title: 'x', secrets: { pw: 'v' } };
    expect(() => s.cardWrite(secretArgs, 'mcp')).toThrow(code('bad_request'));
    expect(() => s.cardWrite({ title: 'x', body: 'use {{secret:pw}}' }, 'mcp')).toThrow(code('bad_request'));
    expect(() => s.cardWrite({ title: 'x', fields: { k: '{{secret:' } }, 'mcp')).toThrow(code('bad_request'));

    const withSecret = s.cardWrite({ title: 'S', body: '{{secret:pw}}', secrets: { pw: 'v' } }, 'terminal');
    expect(() => s.cardWrite({ card_id: withSecret.card_id, title: 'S' }, 'mcp')).toThrow(
      code('bad_request'),
    );
    expect(() => s.cardWrite({ card_id: withSecret.card_id, title: 'S', body: 'gone' }, 'mcp')).toThrow(
      code('bad_request'),
    );
    // a card whose map is non-empty but unreferenced still counts as holding secret references
    const mapped = s.cardWrite({ title: 'M', secrets: { k: 'v' } }, 'terminal');
    expect(() => s.cardWrite({ card_id: mapped.card_id, title: 'M' }, 'mcp')).toThrow(code('bad_request'));
  });

  it('OTP-10 / RAG-3: cards are indexed as title + body + field values without markers; secrets never', () => {
    const c = s.cardWrite(
      {
        title: 'Mail',
        body: 'imap server {{secret:pw}} here',
        fields: { user: 'alice', pass: '{{secret:pw}}' },
        secrets: { pw: 'hunter2' },
      },
      'terminal',
    );
    const src = s.indexSources();
    expect(src.sources).toEqual([
      {
        asset_id: c.card_id,
        revision_id: expect.any(String),
        title: 'Mail',
        body: 'imap server  here\nalice',
      },
    ]);
    expect(JSON.stringify(src)).not.toMatch(/\{\{secret|hunter2/);
    expect(src.excluded).toBe(1); // the credential
  });

  it('card_link adds (idempotent) and removes links; both must be live cards of the vault', () => {
    const a = s.cardWrite({ title: 'A' }, 'terminal');
    const b = s.cardWrite({ title: 'B' }, 'terminal');
    const mem = s.write({ title: 'm', body: 'b' });
    const l1 = s.cardLink({ from: a.card_id, to: b.card_id, rel: 'uses' });
    expect(l1.changed).toBe(true);
    const l2 = s.cardLink({ from: a.card_id, to: b.card_id, rel: 'uses' });
    expect(l2).toMatchObject({ changed: false, revision_id: l1.revision_id });
    expect(s.read({ asset_id: a.card_id }).links).toEqual([{ to: b.card_id, rel: 'uses' }]);
    expect(() => s.cardLink({ from: a.card_id, to: mem.asset_id, rel: 'x' })).toThrow(code('bad_request'));
    expect(() => s.cardLink({ from: mem.asset_id, to: a.card_id, rel: 'x' })).toThrow(code('bad_request'));
    expect(() => s.cardLink({ from: a.card_id, to: a.card_id, rel: 'x' })).toThrow(code('bad_request'));
    expect(() => s.cardLink({ from: a.card_id, to: 'f'.repeat(32), rel: 'x' })).toThrow(code('not_found'));
    expect(() => s.cardLink({ from: a.card_id, to: b.card_id, rel: 'Bad Rel' })).toThrow(code('bad_request'));
    s.delete({ asset_id: b.card_id });
    expect(() => s.cardLink({ from: a.card_id, to: b.card_id, rel: 'other' })).toThrow(code('not_found'));
    const r = s.cardLink({ from: a.card_id, to: b.card_id, rel: 'uses', remove: true });
    expect(r.changed).toBe(true);
    expect(s.read({ asset_id: a.card_id }).links).toEqual([]);
    expect(s.cardLink({ from: a.card_id, to: b.card_id, rel: 'uses', remove: true }).changed).toBe(false);
    // a link on a card update is kept
    s.cardWrite({ card_id: a.card_id, title: 'A2' }, 'terminal');
  });

  it('card_graph follows links in both directions up to depth and records a read intent', () => {
    const [a, b, c, d] = ['A', 'B', 'C', 'D'].map(
      (t) => s.cardWrite({ title: t, fields: { n: t } }, 'terminal').card_id,
    ) as [string, string, string, string];
    s.cardLink({ from: a, to: b, rel: 'next' });
    s.cardLink({ from: c, to: b, rel: 'points' }); // incoming to b
    s.cardLink({ from: c, to: d, rel: 'next' });
    const g1 = s.cardGraph({ card_id: b });
    expect(g1.nodes.map((n) => n.title).sort()).toEqual(['A', 'B', 'C']);
    expect(g1.nodes[0]).toEqual({ card_id: b, title: 'B', fields: { n: 'B' } });
    expect(g1.edges).toHaveLength(2);
    expect(g1.truncated).toBe(false);
    const g2 = s.cardGraph({ card_id: a, depth: 3 });
    expect(g2.nodes.map((n) => n.title)).toEqual(['A', 'B', 'C', 'D']);
    expect(g2.edges).toEqual(
      expect.arrayContaining([
        { from: a, to: b, rel: 'next' },
        { from: c, to: b, rel: 'points' },
        { from: c, to: d, rel: 'next' },
      ]),
    );
    expect(s.cardGraph({ card_id: a, depth: 1 }).nodes.map((n) => n.title)).toEqual(['A', 'B']);
    expect(() => s.cardGraph({ card_id: a, depth: 4 })).toThrow(code('bad_request'));
    const mem = s.write({ title: 'm', body: 'b' });
    expect(() => s.cardGraph({ card_id: mem.asset_id })).toThrow(code('bad_request'));
    const intents = s.auditEntries().filter((e) => e.type === 'intent' && e.kind === 'read');
    expect(intents).toHaveLength(3); // one per answered card_graph (VAULT-13)
  });

  it(`card_graph is bounded to ${MAX_CARD_GRAPH_NODES} nodes`, () => {
    const hub = s.cardWrite({ title: 'hub' }, 'terminal').card_id;
    const ids: string[] = [];
    for (let i = 0; i < MAX_CARD_GRAPH_NODES + 5; i++)
      ids.push(s.cardWrite({ title: `n${i}` }, 'terminal').card_id);
    for (const id of ids) s.cardLink({ from: id, to: hub, rel: 'in' });
    const g = s.cardGraph({ card_id: hub });
    expect(g.nodes).toHaveLength(MAX_CARD_GRAPH_NODES);
    expect(g.truncated).toBe(true);
    expect(g.edges).toHaveLength(MAX_CARD_GRAPH_NODES - 1);
  }, 60_000);

  it('delete and resolve keep a card a card (resolve keeps fields/links/secrets; markers still checked)', () => {
    const c = s.cardWrite(
      { title: 'c', body: '{{secret:k}}', fields: { f: '1' }, secrets: { k: 'v' } },
      'terminal',
    );
    expect(() => s.resolve({ asset_id: c.card_id, title: 'c', body: '{{secret:zz}}' })).toThrow(
      code('bad_request'),
    );
    s.resolve({ asset_id: c.card_id, title: 'c2', body: 'plain' });
    expect(s.read({ asset_id: c.card_id })).toMatchObject({
      kind: 'card',
      fields: { f: '1' },
      secret_labels: ['k'],
    });
    s.delete({ asset_id: c.card_id });
    expect(s.assetKind(undefined, c.card_id)).toBe('card');
  });

  it('diff of a card compares body and fields with markers literal', () => {
    const c = s.cardWrite({ title: 'c', body: 'b', fields: { f: '1' } }, 'terminal');
    const u = s.cardWrite({ card_id: c.card_id, title: 'c', fields: { f: '2' } }, 'terminal');
    const d = s.diff({ asset_id: c.card_id, from: c.revision_id, to: u.revision_id }).diff;
    expect(d).toContain('-f: 1');
    expect(d).toContain('+f: 2');
  });
});
