/** One schema step. `version` is what `PRAGMA user_version` holds once the step is applied. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

/**
 * The schema, as an append-only list in ascending version order (a gap is allowed: versions
 * are handed out to work in progress). Never edit a step that has shipped: add the next one. Conventions: every table is STRICT; times are RFC 3339 UTC text; a row
 * owned by an account disappears with it through `ON DELETE CASCADE`; emails compare
 * case-insensitively (`COLLATE NOCASE`, ASCII folding).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts, teams, ssh keys, vms, shares, integrations, svc1 handles',
    sql: `
      CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL UNIQUE,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        created_at TEXT NOT NULL
      ) STRICT;

      -- Every account owns exactly one team, created with it and deleted with it.
      CREATE TABLE teams (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        owner_account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL
      ) STRICT;

      -- account_id is the primary key: an account is in exactly one team at a time.
      CREATE TABLE team_members (
        account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
        joined_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX team_members_by_team ON team_members(team_id);

      CREATE TABLE ssh_keys (
        id INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL UNIQUE,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,
        key_type TEXT NOT NULL,
        added_at TEXT NOT NULL,
        last_used_at TEXT,
        UNIQUE (account_id, name)
      ) STRICT;

      CREATE TABLE vms (
        -- AUTOINCREMENT: a VM's disk folder is named by its id, so an id must never be reused
        -- (a new VM could otherwise land on the folder of one still being removed).
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        emoji TEXT NOT NULL,
        status TEXT NOT NULL,
        comment TEXT NOT NULL DEFAULT '',
        default_port INTEGER NOT NULL DEFAULT 8000 CHECK (default_port BETWEEN 1 AND 65535),
        visibility TEXT NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
        env TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(env) AND json_type(env) = 'object'),
        setup_script TEXT,
        reflection_secret TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX vms_by_account ON vms(account_id);

      CREATE TABLE vm_tags (
        vm_id INTEGER NOT NULL REFERENCES vms(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (vm_id, tag)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE vm_shares (
        vm_id INTEGER NOT NULL REFERENCES vms(id) ON DELETE CASCADE,
        email TEXT NOT NULL COLLATE NOCASE,
        added_at TEXT NOT NULL,
        PRIMARY KEY (vm_id, email)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX vm_shares_by_email ON vm_shares(email);

      -- headers is a JSON array of "K: V" strings. They are secrets: never log them.
      CREATE TABLE integrations (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('reflection', 'llm', 'github', 'http-proxy')),
        comment TEXT NOT NULL DEFAULT '',
        target TEXT,
        headers TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(headers) AND json_type(headers) = 'array'),
        reflection_fields TEXT NOT NULL DEFAULT '[]'
          CHECK (json_valid(reflection_fields) AND json_type(reflection_fields) = 'array'),
        created_at TEXT NOT NULL,
        UNIQUE (account_id, name)
      ) STRICT;

      CREATE TABLE integration_attachments (
        integration_id INTEGER NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
        spec TEXT NOT NULL CHECK (spec = 'auto:all' OR spec GLOB 'tag:?*' OR spec GLOB 'vm:?*'),
        PRIMARY KEY (integration_id, spec)
      ) STRICT, WITHOUT ROWID;

      -- One svc1 per (key, namespace, payload): the signature is not part of the identity because
      -- ECDSA signatures are randomized and malleable. Removing the key removes its handles.
      CREATE TABLE svc1_handles (
        handle TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL REFERENCES ssh_keys(fingerprint) ON DELETE CASCADE,
        namespace TEXT NOT NULL,
        payload_hash TEXT NOT NULL,
        svc0 TEXT NOT NULL,
        exp INTEGER,
        created_at TEXT NOT NULL,
        UNIQUE (fingerprint, namespace, payload_hash)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description: 'vm limits (SPEC §4: cpus, memory, processes, disk)',
    sql: `
      -- NULL: the default of SPEC §4 (2 CPUs, 2 GiB, 4096 processes, 10 GiB), set by \`resize\`.
      ALTER TABLE vms ADD COLUMN cpus REAL CHECK (cpus IS NULL OR cpus > 0);
      ALTER TABLE vms ADD COLUMN memory_bytes INTEGER CHECK (memory_bytes IS NULL OR memory_bytes > 0);
      ALTER TABLE vms ADD COLUMN pids INTEGER CHECK (pids IS NULL OR pids > 0);
      ALTER TABLE vms ADD COLUMN disk_bytes INTEGER CHECK (disk_bytes IS NULL OR disk_bytes > 0);
    `,
  },
  {
    version: 3,
    description: 'vm setup script outcome (SPEC §3 stat `setup`, §4 life cycle)',
    sql: `
      -- NULL: a VM made before this step, whose setup (if any) had ended well: \`new\` kept
      -- no VM whose script failed then.
      ALTER TABLE vms ADD COLUMN setup_status TEXT
        CHECK (setup_status IS NULL OR setup_status IN ('none', 'running', 'done', 'failed'));
      ALTER TABLE vms ADD COLUMN setup_last_line TEXT;
    `,
  },
  {
    version: 4,
    description: 'tag-scoped api keys (SPEC §3 generate-api-key --tag)',
    sql: `
      -- NULL: the key is not scoped. A key's tag is set when it is registered and never changes.
      ALTER TABLE ssh_keys ADD COLUMN tag TEXT CHECK (tag IS NULL OR tag GLOB '[a-z]*');
    `,
  },
  {
    version: 5,
    description: 'regions (SPEC §3 set-region) and share messages (SPEC §3 share add --message)',
    sql: `
      -- The region of an account's next VMs, and the one each VM was made in: nothing moves.
      ALTER TABLE accounts ADD COLUMN region TEXT NOT NULL DEFAULT 'local' CHECK (region GLOB '[a-z]*');
      ALTER TABLE vms ADD COLUMN region TEXT NOT NULL DEFAULT 'local' CHECK (region GLOB '[a-z]*');
      -- What the owner wrote to the recipient with \`share add --message\`; '' when nothing.
      ALTER TABLE vm_shares ADD COLUMN message TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 6,
    description: 'account defaults, custom domains, share links, team ssh access (SPEC §3)',
    sql: `
      -- \`defaults write <domain> <key>\`: one value per account, domain and key.
      CREATE TABLE account_defaults (
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        domain TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        written_at TEXT NOT NULL,
        PRIMARY KEY (account_id, domain, key)
      ) STRICT, WITHOUT ROWID;

      -- A custom domain routes to one VM (lower case, without a leading "*."); with wildcard
      -- every name under it too. Gone with the VM; a rename keeps it (it names the VM's id).
      CREATE TABLE vm_domains (
        domain TEXT PRIMARY KEY,
        vm_id INTEGER NOT NULL REFERENCES vms(id) ON DELETE CASCADE,
        wildcard INTEGER NOT NULL CHECK (wildcard IN (0, 1)),
        added_at TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX vm_domains_by_vm ON vm_domains(vm_id);

      -- \`share add-link\`: whoever opens <url>?share=<token> gets into the VM's site. SECRET.
      CREATE TABLE vm_share_links (
        token TEXT PRIMARY KEY,
        vm_id INTEGER NOT NULL REFERENCES vms(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        use_count INTEGER NOT NULL DEFAULT 0 CHECK (use_count >= 0),
        last_used_at TEXT
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX vm_share_links_by_vm ON vm_share_links(vm_id);

      -- \`share access allow\`: the members of the owner's team may ssh into the VM (a row: allowed).
      CREATE TABLE vm_team_access (
        vm_id INTEGER PRIMARY KEY REFERENCES vms(id) ON DELETE CASCADE,
        allowed_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 7,
    description: 'team invitations (SPEC §3 team add invites, team accept / decline)',
    sql: `
      -- An account joins a team only by accepting; until then it is invited, and nothing of it
      -- moves. Gone with the team or the account.
      CREATE TABLE team_invitations (
        team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        invited_at TEXT NOT NULL,
        PRIMARY KEY (team_id, account_id)
      );
      CREATE INDEX team_invitations_by_account ON team_invitations(account_id);
    `,
  },
  {
    version: 8,
    description: 'email: VMs that receive mail, and the outbox of mail VMs send (SPEC §4b)',
    sql: `
      -- A row: the VM accepts mail for *@<vm>.<vm-domain>. Gone with the VM.
      CREATE TABLE vm_receive_email (
        vm_id INTEGER PRIMARY KEY REFERENCES vms(id) ON DELETE CASCADE,
        enabled_at TEXT NOT NULL
      ) STRICT;

      -- What a VM sent its owner through the email gateway: the emulator sends nothing out.
      -- vm_name as it was then: the VM may be renamed or gone since.
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        vm_name TEXT NOT NULL,
        recipient TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        sent_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX outbox_by_account ON outbox(account_id, id);
    `,
  },
  {
    version: 9,
    description: 'the image a VM boots (SPEC §4a new --image), its digest and its command',
    sql: `
      -- NULL: the default base system. The reference as the user gave it; its manifest digest
      -- once pulled (NULL while the pull goes on); --command: auto, none, or a shell command.
      ALTER TABLE vms ADD COLUMN image TEXT;
      ALTER TABLE vms ADD COLUMN image_digest TEXT CHECK (image_digest IS NULL OR image_digest GLOB 'sha256:*');
      ALTER TABLE vms ADD COLUMN image_command TEXT;
    `,
  },
];
