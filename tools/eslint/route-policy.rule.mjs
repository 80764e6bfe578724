// Local ESLint rule (issue 6): every Nest HTTP route and WebSocket handler declares its
// policy with one of the markers of apps/center/src/http/route-policy.ts, on the method or
// on its class. apps/center/src/http/route-policy.spec.ts checks the same at runtime.

const ROUTE_DECORATORS = new Set(['Get', 'Post', 'Put', 'Patch', 'Delete', 'Head', 'Options', 'All']);
const WS_DECORATORS = new Set(['SubscribeMessage']);
export const POLICY_MARKERS = ['Public', 'AdminRoute', 'ContentRoute'];

/** The name a decorator is called by: `@Get()`, `@Get`, `@nest.Get()` all give `Get`. */
function decoratorName(decorator) {
  let node = decorator.expression;
  if (node.type === 'CallExpression') node = node.callee;
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') {
    return node.property.name;
  }
  return undefined;
}

function hasMarker(decorators) {
  return (decorators ?? []).some((d) => POLICY_MARKERS.includes(decoratorName(d)));
}

/** @type {import('eslint').Rule.RuleModule} */
const requireRoutePolicy = {
  meta: {
    type: 'problem',
    docs: { description: 'Every Nest route and WebSocket handler declares its policy marker.' },
    schema: [],
    messages: {
      missing:
        '{{kind}} handler `{{method}}` (@{{decorator}}) declares no policy: add one of {{markers}} to the method or its class.',
    },
  },
  create(context) {
    return {
      MethodDefinition(node) {
        const handler = (node.decorators ?? [])
          .map(decoratorName)
          .find((name) => ROUTE_DECORATORS.has(name) || WS_DECORATORS.has(name));
        if (!handler) return;
        if (hasMarker(node.decorators)) return;
        const cls = node.parent?.parent; // MethodDefinition -> ClassBody -> Class
        if (cls && hasMarker(cls.decorators)) return;
        const className = cls?.id?.name ?? '<anonymous class>';
        const key = node.key.type === 'Identifier' ? node.key.name : context.sourceCode.getText(node.key);
        context.report({
          node: node.key,
          messageId: 'missing',
          data: {
            kind: WS_DECORATORS.has(handler) ? 'WebSocket' : 'Route',
            method: `${className}.${key}`,
            decorator: handler,
            markers: POLICY_MARKERS.map((m) => `@${m}`).join(', '),
          },
        });
      },
    };
  },
};

export const routePolicyPlugin = {
  meta: { name: 'arslan-route-policy' },
  rules: { 'require-route-policy': requireRoutePolicy },
};

export default routePolicyPlugin;
