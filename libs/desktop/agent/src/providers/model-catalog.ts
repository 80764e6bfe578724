// PROV-04/05: the configured models by name, and which of them does each kind of work. A
// conversation picks a model by name; the run resolves that name here, so requests only ever go
// to an endpoint the user configured (PROV-06). Listings carry names and kinds only: never a key
// or a URL (a URL may carry credentials or private hosts).
import type { ModelProvider } from '../ports/model.port';
import { type ProviderKind, createModelProvider } from './create-provider';

export const MODEL_ROLES = ['main', 'summary', 'judgment'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export interface ConfiguredModel {
  /** 1-64 of a-z 0-9 . _ - ; unique in the catalog. */
  name: string;
  kind: ProviderKind;
  model: string;
  baseUrl: string;
  /** Read from the env var the config names (ARCH-11); never listed. */
  apiKey?: string;
}

/** What a settings surface may see of a configured model. */
export interface ModelListing {
  name: string;
  provider: ProviderKind;
  model: string;
  roles: ModelRole[];
}

export interface ResolvedModel {
  name: string;
  provider: ModelProvider;
  model: string;
}

/** A model name that is not (or no longer) configured. */
export class UnknownModelError extends Error {
  readonly code = 'unknown_model';
  constructor(readonly modelName: string) {
    // "unknown provider" keeps the local API's existing mapping (400 unknown_provider).
    super(`unknown provider: model "${modelName}" is not configured`);
    this.name = 'UnknownModelError';
  }
}

export type ProviderFactory = (model: ConfiguredModel) => ModelProvider;

const defaultFactory: ProviderFactory = (m) =>
  createModelProvider(m.kind, { baseUrl: m.baseUrl, ...(m.apiKey ? { apiKey: m.apiKey } : {}) });

export class ModelCatalog {
  private readonly byName = new Map<string, ConfiguredModel>();
  private readonly providers = new Map<string, ModelProvider>();
  private readonly roles: Readonly<Partial<Record<ModelRole, string>>>;

  /** `roles.main` defaults to the first model; other roles are unset unless configured. */
  constructor(
    models: readonly ConfiguredModel[],
    roles: Partial<Record<ModelRole, string>> = {},
    private readonly factory: ProviderFactory = defaultFactory,
  ) {
    if (models.length === 0) throw new Error('a model catalog needs at least one model');
    for (const m of models) {
      if (this.byName.has(m.name)) throw new Error(`duplicate model name ${m.name}`);
      this.byName.set(m.name, m);
    }
    for (const name of Object.values(roles))
      if (name !== undefined && !this.byName.has(name)) throw new UnknownModelError(name);
    this.roles = { main: models[0]?.name, ...roles };
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The model behind `name`; its provider is built once and reused (PROV-09 memory per model). */
  resolve(name: string): ResolvedModel {
    const config = this.byName.get(name);
    if (!config) throw new UnknownModelError(name);
    let provider = this.providers.get(name);
    if (!provider) {
      provider = this.factory(config);
      this.providers.set(name, provider);
    }
    return { name, provider, model: config.model };
  }

  /** The model assigned to `role`, if any (`main` always has one). */
  forRole(role: ModelRole): ResolvedModel | undefined {
    const name = this.roles[role];
    return name === undefined ? undefined : this.resolve(name);
  }

  roleName(role: ModelRole): string | undefined {
    return this.roles[role];
  }

  list(): ModelListing[] {
    return [...this.byName.values()].map((m) => ({
      name: m.name,
      provider: m.kind,
      model: m.model,
      roles: MODEL_ROLES.filter((role) => this.roles[role] === m.name),
    }));
  }
}
