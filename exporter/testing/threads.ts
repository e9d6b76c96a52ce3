// A process's threads as Linux lists them: each one's name and nice value
// (/proc/<pid>/task/<tid>/comm, and field 19 of /proc/<pid>/task/<tid>/stat), for the tests of
// which threads run below the event loop.
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadInfo {
  name: string;
  nice: number;
}

export function threadsOfThisProcess(): ThreadInfo[] {
  return threadsOf('self');
}

/** The threads of process `pid` ('self': this one). */
export function threadsOf(pid: number | 'self'): ThreadInfo[] {
  const task = `/proc/${String(pid)}/task`;
  return readdirSync(task).map((tid) => {
    const stat = readFileSync(`${task}/${tid}/stat`, 'utf8');
    return {
      name: readFileSync(`${task}/${tid}/comm`, 'utf8').trim(),
      // After the name's closing parenthesis: field 3 on; nice is field 19.
      nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]),
    };
  });
}
