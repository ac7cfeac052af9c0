-- 022_token_config_version: each token carries its platform configuration's
-- version (platform_configs.version), so the statement every request runs
-- reads the token's row alone: one table, as a primary-key select.  A
-- change of the configuration sets it on every token of the platform in
-- the same transaction as the version; a new token copies it under a
-- shared lock of the configuration's row, so neither can miss the other.

ALTER TABLE tokens ADD COLUMN IF NOT EXISTS config_version BIGINT NOT NULL DEFAULT 0;
UPDATE tokens t JOIN platform_configs c ON c.platform_id = t.platform_id
  SET t.config_version = c.version WHERE t.config_version <> c.version;
