/** Prompt fingerprints: token estimates and chained block hashes, the only form in which prompts reach routing. */
package io.kvroute.ingress.prompt;
