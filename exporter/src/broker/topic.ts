// Topic routing, the broker's way and in linear time: the one matcher of binding keys against
// routing keys, used by the routes (the receiver's inferred queues), dead-lettering, reach (replay
// plans), and, as the regular expression it compiles to, by the SQL of the journeys' queue heads.
// A binding key is written by any app user who may bind a queue: it is data, never a pattern for a
// backtracking engine (`#.#.#.#.#.#.#.#.#.#.#.z` against a 21-word key took V8's engine 6 s).
//
// Keys are split into words as RabbitMQ splits them (rabbit_exchange_type_topic): '' has no word
// at all, 'a.' has two ('a' and ''). `*` is exactly one word, `#` zero or more; consecutive `#`
// are one. Matching walks (trie node, word index) states once each: a trie of B bindings of at
// most W words against a key of K words costs O(B * W * K) at worst, and routing keys and binding
// keys are AMQP short strings (255 bytes: 128 words at most).

/** A key's words, as the broker splits them. */
export function topicWords(key: string): string[] {
  return key === '' ? [] : key.split('.');
}

/** A binding key's words with each run of `#` made one (the same matches, fewer states). */
function bindingWords(bindingKey: string): string[] {
  const out: string[] = [];
  for (const w of topicWords(bindingKey)) if (w !== '#' || out.at(-1) !== '#') out.push(w);
  return out;
}

interface TrieNode<T> {
  id: number;
  words: Map<string, TrieNode<T>>;
  star: TrieNode<T> | null;
  /** The node after a `#`: reached taking no word, it stays while taking any number of them. */
  hash: TrieNode<T> | null;
  /** It is the far end of a `#` edge. */
  repeats: boolean;
  values: T[];
}

/** Bindings (binding key -> value) matched against routing keys, all at once. */
export class TopicTrie<T> {
  private nodes = 0;
  private readonly root: TrieNode<T> = this.node(false);
  private bindings = 0;

  private node(repeats: boolean): TrieNode<T> {
    return { id: this.nodes++, words: new Map(), star: null, hash: null, repeats, values: [] };
  }

  /** How many bindings were added. */
  get size(): number {
    return this.bindings;
  }

  add(bindingKey: string, value: T): void {
    let n = this.root;
    for (const w of bindingWords(bindingKey)) {
      if (w === '#') n = n.hash ??= this.node(true);
      else if (w === '*') n = n.star ??= this.node(false);
      else {
        let next = n.words.get(w);
        if (!next) n.words.set(w, (next = this.node(false)));
        n = next;
      }
    }
    n.values.push(value);
    this.bindings++;
  }

  /** The values of every binding the routing key matches, each once, in no set order. */
  match(routingKey: string): T[] {
    const words = topicWords(routingKey);
    const k = words.length;
    const seen = new Set<number>();
    const found = new Set<T>();
    const pending: [TrieNode<T>, number][] = [];
    const visit = (n: TrieNode<T> | null | undefined, i: number) => {
      if (!n) return;
      const state = n.id * (k + 1) + i;
      if (seen.has(state)) return;
      seen.add(state);
      pending.push([n, i]);
    };
    visit(this.root, 0);
    for (let s = pending.pop(); s; s = pending.pop()) {
      const [n, i] = s;
      visit(n.hash, i); // `#` taking no word
      if (i === k) {
        for (const v of n.values) found.add(v);
        continue;
      }
      visit(n.words.get(words[i]!), i + 1);
      visit(n.star, i + 1);
      if (n.repeats) visit(n, i + 1); // `#` taking one more word
    }
    return [...found];
  }
}

/** Whether a routing key matches one binding key (a trie of one). */
export function topicMatches(bindingKey: string, routingKey: string): boolean {
  const one = new TopicTrie<true>();
  one.add(bindingKey, true);
  return one.match(routingKey).length > 0;
}

/** PostgreSQL ARE characters that need a backslash; a backslash before a letter is an escape. */
const ARE_SPECIAL = /[.^$|?*+()[\]{}\\]/g;

/**
 * The binding key as a PostgreSQL regular expression over `topicSubject(routingKey)`, for the SQL
 * that filters stored publishes by the bindings of a queue (journeys/store/queue-heads.ts).
 * PostgreSQL runs an ARE without back-references as an automaton (no backtracking), so its time
 * is linear in the key whatever the binding; the groups are non-capturing, `#` runs are one, and
 * every word the binding names is a quoted literal. Agrees with topicMatches (topic.test.ts and
 * the broker's own routing in topic.int.test.ts).
 */
export function topicSqlRegex(bindingKey: string): string {
  const parts = bindingWords(bindingKey).map((w) =>
    w === '#' ? '(?:\\.[^.]*)*' : w === '*' ? '\\.[^.]*' : `\\.${w.replace(ARE_SPECIAL, '\\$&')}`,
  );
  return `^${parts.join('')}$`;
}

/** What topicSqlRegex is matched against: each word of the key after a dot; '' for no word. */
export const TOPIC_SUBJECT_SQL = (routingKeySql: string) =>
  `(CASE WHEN ${routingKeySql} = '' THEN '' ELSE '.' || ${routingKeySql} END)`;
