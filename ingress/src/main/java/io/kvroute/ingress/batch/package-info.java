/** OpenAI Batch formats: input JSONL to submit requests, output JSONL rendered from completions, and the submit manifest. */
package io.kvroute.ingress.batch;
