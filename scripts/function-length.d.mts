// Types of scripts/function-length.mjs, for test/shape.test.ts.
export declare const FUNCTION_LENGTH: {
  max: number;
  skipBlankLines: boolean;
  skipComments: boolean;
};
export declare const NOT_GATED: string[];
export declare const LONGER_FUNCTIONS: Record<string, Record<string, number>>;
export declare function functionLengthConfig(): object[];
