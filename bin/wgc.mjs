#!/usr/bin/env node
// `wgc`: the short name of `wg-conformance` (bin/wg-conformance.mjs), kept as an alias.
import './wg-conformance.mjs';
