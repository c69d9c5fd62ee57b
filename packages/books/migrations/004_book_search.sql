-- Full-text search over title, author and synopsis (GET /books?q=): one stored tsvector per book, with
-- English stemming, title weighted above author above synopsis (ranking), behind a GIN index. Generated,
-- so it can never disagree with the columns it is made from.
alter table books add column search tsvector generated always as (
  setweight(to_tsvector('english', title), 'A')
  || setweight(to_tsvector('english', author), 'B')
  || setweight(to_tsvector('english', synopsis), 'C')
) stored;
create index books_search on books using gin (search);
