// Where the messages a user reads (doctor's fixes, config errors, log lines, the help) send them:
// the repository's docs, by full URL, since the npm package ships none of docs/. The repository is
// package.json's `repository` (src/docs.test.ts holds the two to each other and every page named
// to a file in docs/).
export const REPOSITORY = 'https://github.com/acktrail/acktrail';

/** A page of docs/ (with its section's anchor), as a URL a terminal can open. */
export const docsUrl = (page: string, anchor?: string) =>
  `${REPOSITORY}/blob/main/docs/${page}${anchor ? `#${anchor}` : ''}`;

/** What a log line of a failing source says to do: the command that checks every source. */
export const DOCTOR =
  'run acktrail doctor (the same config and environment): it checks each source and says the fix';
