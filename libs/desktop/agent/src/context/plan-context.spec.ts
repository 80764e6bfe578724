import type { TrajectoryItem } from '../ports';
import { contextBudgets } from './budgets';
import { type IndexedItem, planContext } from './plan-context';

const LOCAL = contextBudgets({ kind: 'local' }); // history 3,276; fold above 2,457; recent ≤ 1,638

const user = (text: string): TrajectoryItem => ({ role: 'user', text });
const answer = (text: string): TrajectoryItem => ({ role: 'assistant', text, toolCalls: [] });
const call = (id: string, name = 'read_file'): TrajectoryItem => ({
  role: 'assistant',
  text: '',
  toolCalls: [{ id, name, argumentsJson: '{"path":"a.txt"}' }],
});
const result = (id: string, content: string): TrajectoryItem => ({
  role: 'tool',
  callId: id,
  name: 'read_file',
  content,
  isError: false,
});
const indexed = (items: TrajectoryItem[]): IndexedItem[] => items.map((item, index) => ({ index, item }));
/** ~`tokens` tokens of ASCII text tagged with `tag`. */
const words = (tag: string, tokens: number): string => `${tag} ${'w'.repeat(tokens * 4)}`;

describe('planContext', () => {
  it('CTX-01: a short conversation goes out unchanged — nothing masked, nothing folded', () => {
    const items = indexed([user('hi'), answer('hello'), user('how are you?')]);
    const plan = planContext(items, LOCAL, 0);
    expect(plan.kept.map((v) => v.item)).toEqual(items.map((v) => v.item));
    expect(plan.toFold).toEqual([]);
    expect(plan.maskedResults).toBe(0);
  });

  it('CTX-04 / CTX-06: over 3/4 of the budget the oldest turns fold; the last 4 user turns stay verbatim', () => {
    const items: TrajectoryItem[] = [];
    for (let t = 1; t <= 8; t += 1) items.push(user(words(`u${t}`, 150)), answer(words(`a${t}`, 150)));
    items.push(user('the current question'));
    const plan = planContext(indexed(items), LOCAL, 0);
    const keptUsers = plan.kept.filter((v) => v.item.role === 'user').map((v) => v.item);
    expect(keptUsers.slice(-4)).toEqual(items.filter((i) => i.role === 'user').slice(-4));
    expect(plan.verbatimUserTurns).toBeGreaterThanOrEqual(4);
    expect(plan.toFold.length).toBeGreaterThan(0);
    expect(plan.toFold[0]!.index).toBe(0);
    // Folded and kept partition the input, in order.
    expect([...plan.toFold, ...plan.kept].map((v) => v.index)).toEqual(items.map((_, i) => i));
    expect(plan.historyTokens).toBeLessThanOrEqual(LOCAL.recentTurns);
  });

  it('CTX-04: recent turns are kept only while they fit in half the budget', () => {
    const items: TrajectoryItem[] = [];
    for (let t = 1; t <= 4; t += 1) items.push(user(words(`u${t}`, 550)), answer(words(`a${t}`, 100)));
    const plan = planContext(indexed(items), LOCAL, 0);
    // 4 turns of ~660 tokens cannot fit in 1,638: only the newest two do.
    expect(plan.verbatimUserTurns).toBe(2);
    expect(plan.kept[0]!.item).toEqual(items[4]);
  });

  it('CTX-05: older turns’ tool results are masked before any folding, in the request only', () => {
    const items = [
      user('read a'),
      call('c1'),
      result('c1', words('A', 2_600)),
      answer('done'),
      user('and now?'),
    ];
    const original = structuredClone(items);
    const plan = planContext(indexed(items), LOCAL, 0);
    expect(plan.maskedResults).toBe(1);
    expect(plan.toFold).toEqual([]); // masking alone was enough: no model call
    const masked = plan.kept[2]!.item;
    expect(masked.role === 'tool' && masked.content).toContain('omitted from this request');
    expect(masked.role === 'tool' && masked.callId).toBe('c1');
    expect(items).toEqual(original); // CTX-07: the caller's records are untouched
  });

  it('CTX-03: the current turn’s results have their own budget — oldest masked, the latest trimmed', () => {
    const items = [
      user('survey'),
      call('c1'),
      result('c1', words('R1', 1_500)),
      call('c2'),
      result('c2', words('R2', 3_000)),
    ];
    const plan = planContext(indexed(items), LOCAL, 0);
    expect(plan.maskedResults).toBe(1);
    expect(plan.trimmedResults).toBe(1);
    const latest = plan.kept.at(-1)!.item;
    expect(latest.role === 'tool' && latest.content.startsWith('R2 ')).toBe(true);
    expect(latest.role === 'tool' && latest.content).toContain('characters omitted from this request');
    expect(plan.toolResultTokens).toBeLessThanOrEqual(LOCAL.toolResults);
  });

  it('CTX-06: inside one long turn, middle steps fold while the user message stays verbatim', () => {
    const items: TrajectoryItem[] = [user('a long task')];
    for (let s = 1; s <= 12; s += 1) {
      items.push({
        role: 'assistant',
        text: words(`n${s}`, 200),
        toolCalls: [{ id: `c${s}`, name: 'list_dir', argumentsJson: '{}' }],
      });
      items.push(result(`c${s}`, 'ok'));
    }
    const plan = planContext(indexed(items), LOCAL, 0);
    expect(plan.kept[0]!.item).toEqual(items[0]);
    expect(plan.toFold.every((v) => v.item.role !== 'user')).toBe(true);
    // Every kept tool result still follows the assistant item that called it.
    const keptItems = plan.kept.map((v) => v.item);
    keptItems.forEach((item, i) => {
      if (item.role !== 'tool') return;
      const caller = keptItems
        .slice(0, i)
        .reverse()
        .find((x) => x.role === 'assistant');
      expect(caller?.role === 'assistant' && caller.toolCalls.map((c) => c.id)).toContain(item.callId);
    });
    expect(keptItems.at(-1)).toEqual(items.at(-1));
  });

  it('CTX-06: the summary counts towards the history budget', () => {
    const items: TrajectoryItem[] = [];
    for (let t = 1; t <= 3; t += 1) items.push(user(words(`u${t}`, 300)), answer(words(`a${t}`, 300)));
    expect(planContext(indexed(items), LOCAL, 0).toFold).toEqual([]);
    expect(planContext(indexed(items), LOCAL, 800).toFold.length).toBeGreaterThan(0);
  });
});
