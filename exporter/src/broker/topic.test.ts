// The topic matcher: the broker's semantics (RabbitMQ's docs and its word split), the same answer
// from the trie, from one binding alone and from the SQL form, and linear time on the keys that
// held V8's backtracking engine for seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TopicTrie, topicMatches, topicSqlRegex, topicWords } from './topic.js';
import { TOPIC_CASES } from '../../testing/topic-cases.js';

test("words are split as the broker splits them: '' has none, a trailing dot makes an empty one", () => {
  assert.deepEqual(topicWords(''), []);
  assert.deepEqual(topicWords('a.'), ['a', '']);
  assert.deepEqual(topicWords('.'), ['', '']);
});

test('one binding: * is one word, # zero or more, every other word a literal', () => {
  for (const [binding, key, want] of TOPIC_CASES)
    assert.equal(topicMatches(binding, key), want, `${binding} ~ ${key}`);
});

test('a trie of every binding answers each key as each binding alone does', () => {
  const trie = new TopicTrie<string>();
  const bindings = [...new Set(TOPIC_CASES.map(([b]) => b))];
  for (const b of bindings) trie.add(b, b);
  for (const key of new Set(TOPIC_CASES.map(([, k]) => k)))
    assert.deepEqual(
      trie.match(key).sort(),
      bindings.filter((b) => topicMatches(b, key)).sort(),
      `key ${JSON.stringify(key)}`,
    );
});

test('the SQL form says what the matcher says (matched here as PostgreSQL is asked to)', () => {
  const subject = (key: string) => (key === '' ? '' : `.${key}`);
  // JavaScript reads `(?:` and the escapes as PostgreSQL's ARE does for these patterns.
  for (const [binding, key, want] of TOPIC_CASES)
    assert.equal(
      new RegExp(topicSqlRegex(binding)).test(subject(key)),
      want,
      `${binding} ~ ${key}`,
    );
});

test('a binding built to backtrack and a key that fails at its end: answered, and right', () => {
  // `#.#.…#.z` against 21 words ending in another word: V8's regex took 6 s at 12 `#`, about four
  // times more per `#`. The trie walks each (node, word) state once. Past the test's timeout, a
  // backtracking matcher fails it.
  const binding = `${Array.from({ length: 60 }, () => '#').join('.')}.z`;
  const spread = `${Array.from({ length: 60 }, (_, i) => (i % 2 ? '#' : `w${i}`)).join('.')}.z`;
  const key = Array.from({ length: 127 }, (_, i) => `w${i}`).join('.');
  assert.equal(topicMatches(binding, key), false);
  assert.equal(topicMatches(binding, `${key}.z`), true);
  assert.equal(topicMatches(spread, key), false);
  const trie = new TopicTrie<number>();
  for (let i = 0; i < 500; i++) trie.add(`${'#.*.'.repeat(i % 40)}#.w${i}`, i);
  // Only the binding whose last word is the key's last one matches.
  assert.deepEqual(trie.match(key), [126]);
});
