// Package zutfile owns packaged agents ("zutfiles"): the manifest format
// ("zutfile": 1), its permission ceiling and the variables in its paths,
// loading an agent from a directory, a .zut archive or a git repository,
// the archive's limits, deterministic packing, the digest, and the
// consent remembered per digest.
package zutfile
