-- 020_worker_beat_node: the node each xborder-worker's connection is on
-- (its socket or host:port, as db_nodes spells it), so that the API's
-- writes of a platform go through the node where its worker writes: on a
-- Galera cluster, two nodes writing the same rows at once make one of
-- them roll back (a certification conflict); one node's writers wait for
-- each other's locks instead.

ALTER TABLE worker_beats ADD COLUMN IF NOT EXISTS node VARCHAR(255) NOT NULL DEFAULT '';
