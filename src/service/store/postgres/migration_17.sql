-- 17: a member set in place where only plain members come before it (issue 33).
--
-- A pick rewrites each simulation's status in its document, and `sb_set_members` (migration
-- 14) read every member of the 3 KB document to set one: most of a claim's cost a simulation.
-- A simulation's `status` is its second member, after its id. So each member is first looked
-- for as text: found where everything before it is a run of members with plain names (no
-- escapes) and values that hold nothing nested (a string or a number, true, false, null), and
-- its own value plain, it is the first top-level member of that name, and its value's text is
-- replaced there. Anything else (a member after a nested value or an escaped name, one absent,
-- whitespace between them, a nested value to replace) goes migration 14's way from that member
-- on. `members::set` does the same in Rust, so both engines write the same bytes for any body
-- (`store::tests::migrating`).
CREATE OR REPLACE FUNCTION sb_set_members(body JSON, members JSONB) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    done TEXT := body::TEXT;
    n INT;
    i INT := 0;
    name TEXT;
    key TEXT;
    value TEXT;
    at INT;
    old TEXT;
    names TEXT[];
    pairs TEXT[];
    pair TEXT;
BEGIN
    -- As migration 9: no members, the body as it is; a member given without a value, skipped.
    members := coalesce(members, '[]');
    n := jsonb_array_length(members);
    WHILE i < n LOOP
        name := members -> i ->> 0;
        key := to_json(name)::TEXT || ':';
        value := members -> i ->> 1;
        IF key || value IS NOT NULL THEN
            at := strpos(done, key);
            EXIT WHEN at = 0
                OR left(done, at - 1) !~ '^\{(?:"[^"\\]*":(?:"(?:[^"\\]|\\.)*"|[-+.0-9a-zA-Z]+),)*$';
            old := substring(substr(done, at + length(key)) FROM '^("(?:[^"\\]|\\.)*"|[-+.0-9a-zA-Z]+)[,}]');
            EXIT WHEN old IS NULL;
            done := left(done, at - 1) || key || value || substr(done, at + length(key) + length(old));
        END IF;
        i := i + 1;
    END LOOP;
    IF i = n THEN
        RETURN done;
    END IF;
    -- Migration 14's way for the members left: every member read, each given set at its name's
    -- first place or appended.
    SELECT coalesce(array_agg(e.key ORDER BY e.n), '{}'),
            coalesce(array_agg(to_json(e.key)::TEXT || ':' || e.value::TEXT ORDER BY e.n), '{}')
        INTO names, pairs
        FROM json_each(CASE WHEN i = 0 THEN body ELSE CAST(done AS JSON) END) WITH ORDINALITY AS e (key, value, n);
    WHILE i < n LOOP
        name := members -> i ->> 0;
        pair := to_json(name)::TEXT || ':' || (members -> i ->> 1);
        i := i + 1;
        CONTINUE WHEN pair IS NULL;
        at := array_position(names, name);
        IF at IS NULL THEN
            names := names || name;
            pairs := pairs || pair;
        ELSE
            pairs[at] := pair;
        END IF;
    END LOOP;
    RETURN '{' || array_to_string(pairs, ',') || '}';
END $$;
