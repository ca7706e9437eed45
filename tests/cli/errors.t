Malformed, empty and truncated inputs: exact error text, exit status 2.

  $ perflab parse tests/fixtures/kernel-table/missing-field.txt
  perflab: tests/fixtures/kernel-table/missing-field.txt:2:13: expected the DRAM utilisation (a number), found end of line
  [2]

  $ perflab parse /nonexistent/file.txt
  perflab: /nonexistent/file.txt: cannot open: No such file or directory
  [2]

  $ perflab run no-such-recipe examples/kernel-table.txt 2>&1 | cut -c1-45
  perflab: unknown recipe 'no-such-recipe' (ava
