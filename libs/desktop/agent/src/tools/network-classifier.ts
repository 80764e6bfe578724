// SEC-008: a tokenising classifier for "network-looking" commands. Heuristic by nature (SEC-NG2):
// it decides whether a card is shown first; the OS sandbox (SEC-007) is what actually denies network.

export interface NetworkVerdict {
  network: boolean;
  reasons: string[];
}

const ALWAYS_NETWORK = new Set([
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'ftp',
  'tftp',
  'telnet',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'ping',
  'ping6',
  'dig',
  'nslookup',
  'host',
  'whois',
  'traceroute',
  'tracepath',
  'mtr',
  'aria2c',
  'http',
  'https',
  'xh',
  'lynx',
  'links',
  'w3m',
  'mosh',
  'npx',
  'pnpx',
  'bunx',
  'gh',
  'hub',
  'az',
  'aws',
  'gcloud',
  'gsutil',
  'kubectl',
  'helm',
  'heroku',
  'vercel',
  'netlify',
  'fly',
  'flyctl',
  'ngrok',
  'nmap',
  'tailscale',
  'rclone',
]);

/** Tool → subcommands that reach the network (first non-option word after the tool). */
const NETWORK_SUBCOMMANDS: Record<string, readonly string[]> = {
  git: ['fetch', 'clone', 'push', 'pull', 'ls-remote', 'remote', 'submodule', 'fetch-pack', 'send-email'],
  npm: [
    'install',
    'i',
    'ci',
    'add',
    'update',
    'up',
    'upgrade',
    'publish',
    'view',
    'info',
    'show',
    'outdated',
    'audit',
    'exec',
    'x',
    'create',
    'init',
    'login',
    'search',
    'dist-tag',
    'pack',
  ],
  yarn: ['install', 'add', 'upgrade', 'up', 'dlx', 'create', 'publish', 'info', 'npm', 'outdated', 'audit'],
  pnpm: ['install', 'i', 'add', 'update', 'up', 'dlx', 'create', 'publish', 'outdated', 'audit', 'fetch'],
  bun: ['install', 'i', 'add', 'update', 'x', 'create', 'publish'],
  pip: ['install', 'download', 'search', 'index'],
  pip3: ['install', 'download', 'search', 'index'],
  pipx: ['install', 'run', 'upgrade', 'inject'],
  uv: ['pip', 'add', 'sync', 'lock', 'run', 'tool', 'python'],
  poetry: ['install', 'add', 'update', 'lock', 'publish'],
  conda: ['install', 'create', 'update'],
  gem: ['install', 'update', 'fetch', 'push'],
  bundle: ['install', 'update'],
  cargo: ['install', 'fetch', 'update', 'publish', 'add', 'search', 'build', 'run', 'test'],
  go: ['get', 'install', 'mod', 'run'],
  brew: ['install', 'update', 'upgrade', 'fetch', 'tap', 'reinstall'],
  apt: ['install', 'update', 'upgrade', 'download', 'full-upgrade'],
  'apt-get': ['install', 'update', 'upgrade', 'download', 'dist-upgrade', 'source'],
  dnf: ['install', 'update', 'upgrade', 'download'],
  yum: ['install', 'update', 'upgrade'],
  apk: ['add', 'update', 'upgrade', 'fetch'],
  composer: ['install', 'require', 'update', 'create-project'],
  docker: ['pull', 'push', 'login', 'run', 'build', 'search'],
  podman: ['pull', 'push', 'login', 'run', 'build', 'search'],
  rsync: [],
  deno: ['install', 'run', 'cache'],
  mvn: ['install', 'package', 'deploy', 'dependency:resolve'],
  gradle: ['build', 'dependencies'],
  svn: ['checkout', 'co', 'update', 'up', 'commit', 'ci', 'export'],
  hg: ['clone', 'pull', 'push'],
};

/** Wrappers whose arguments start another command. */
const WRAPPERS = new Set([
  'sudo',
  'env',
  'time',
  'nice',
  'nohup',
  'command',
  'exec',
  'xargs',
  'timeout',
  'stdbuf',
  'doas',
  'watch',
  'strace',
]);

const URL_TOKEN = /^(?:https?|ftps?|ssh|git|wss?|sftp|rsync|scp|telnet):\/\//i;

/** Splits a shell command into simple commands (words), honouring quotes and operators. */
export function tokenizeCommand(command: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i]!;
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      word += command.slice(i + 1, close === -1 ? undefined : close);
      inWord = true;
      i = close === -1 ? command.length : close;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j += 1) {
        if (command[j] === '\\' && j + 1 < command.length) j += 1;
        word += command[j];
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[i + 1];
      inWord = true;
      i += 1;
    } else if (/\s/.test(c)) {
      if (c === '\n') endCommand();
      else endWord();
    } else if (';|&()`{}'.includes(c) || (c === '$' && command[i + 1] === '(')) {
      endCommand();
      if (c === '$') i += 1;
    } else if (c === '#' && !inWord) {
      const nl = command.indexOf('\n', i);
      i = nl === -1 ? command.length : nl - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

function basename(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash === -1 ? word : word.slice(slash + 1);
}

function stripWrappers(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      i += 1;
      continue;
    }
    const b = basename(w);
    if (!WRAPPERS.has(b)) break;
    i += 1;
    // Skip the wrapper's options and a numeric duration (timeout 10 curl …).
    while (i < words.length && (words[i]!.startsWith('-') || /^\d+[smhd]?$/.test(words[i]!))) i += 1;
  }
  return words.slice(i);
}

/** First word after the tool that is not an option (and not the value of `-C dir` / `--prefix x`). */
function subcommand(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    if (a === '-C' || a === '-c' || a === '--prefix' || a === '--cwd' || a === '--git-dir' || a === '-m') {
      if (a === '-m') return args[i + 1] === 'pip' ? 'pip' : undefined;
      i += 1;
      continue;
    }
    if (!a.startsWith('-')) return a;
  }
  return undefined;
}

export function classifyNetworkCommand(command: string): NetworkVerdict {
  const reasons: string[] = [];
  if (/\/dev\/(?:tcp|udp)\//.test(command)) reasons.push('uses /dev/tcp or /dev/udp');
  for (const raw of tokenizeCommand(command)) {
    const words = stripWrappers(raw);
    const tool = words[0] ? basename(words[0]) : undefined;
    if (!tool) continue;
    const args = words.slice(1);
    if (ALWAYS_NETWORK.has(tool)) reasons.push(`${tool} reaches the network`);
    const subs = NETWORK_SUBCOMMANDS[tool];
    if (subs) {
      const sub = subcommand(args);
      if (tool === 'rsync' && args.some((a) => /^[^/\s]+:/.test(a) || a.startsWith('rsync://'))) {
        reasons.push('rsync to a remote host');
      } else if (sub && subs.includes(sub)) reasons.push(`${tool} ${sub} reaches the network`);
    }
    if (/^python[0-9.]*$/.test(tool) && subcommand(args) === 'pip' && args.includes('install')) {
      reasons.push('pip install reaches the network');
    }
    if (tool === 'openssl' && args[0] === 's_client') reasons.push('openssl s_client reaches the network');
    for (const a of words) if (URL_TOKEN.test(a)) reasons.push(`network URL ${a.slice(0, 80)}`);
  }
  return { network: reasons.length > 0, reasons: [...new Set(reasons)] };
}
