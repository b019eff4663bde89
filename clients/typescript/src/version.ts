/** This package's version (a test checks it equals package.json's). */
export const VERSION = "0.1.0";
