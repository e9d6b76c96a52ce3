export interface ThreadInfo {
    name: string;
    nice: number;
}
export declare function threadsOfThisProcess(): ThreadInfo[];
/** The threads of process `pid` ('self': this one). */
export declare function threadsOf(pid: number | 'self'): ThreadInfo[];
