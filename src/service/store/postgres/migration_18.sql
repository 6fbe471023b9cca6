-- 18: an alert's window reads the calls started in it, not every call kept (issue 33).
--
-- `alerts::scored` found a window's calls by walking every live call (`docs_list`) and
-- filtering on their start: 0.2 ms a window's read on a fresh store, 54 ms once a
-- 10,000-simulation run had added its calls, and more with every call a store keeps. The calls'
-- starts, indexed for live calls alone, give the window's calls at once.
CREATE INDEX docs_calls_started ON docs (created_at) WHERE kind = 'call' AND deleted_at IS NULL;
