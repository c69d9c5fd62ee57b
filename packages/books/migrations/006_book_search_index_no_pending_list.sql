-- The search index without GIN's pending list. With fastupdate (the default) new entries go to an
-- unsorted pending list that every search scans in full until a VACUUM or autoanalyze merges it; after
-- a bulk load of 10,000 books (migration 004 made the index on an empty table), each `search @@ query`
-- read the whole list: ~1 ms a search, so the planner chose a sequential scan of every book instead.
-- Without it each book write updates the index in place: slower writes, and book writes are rare and
-- admin-only. The rebuild moves entries already in a pending list into the index proper.
alter index books_search set (fastupdate = off);
reindex index books_search;
