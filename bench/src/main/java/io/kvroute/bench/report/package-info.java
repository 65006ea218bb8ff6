/** Presenting a bench run: the comparison table, the JSON report and the PNG plots. */
package io.kvroute.bench.report;
