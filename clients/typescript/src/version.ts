/** This package's version (`vessel --version`); a test keeps it equal to package.json's. */
export const clientVersion = "0.1.0";
