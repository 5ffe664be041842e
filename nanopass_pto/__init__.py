"""The PTO compiler assembled: the composition root (`plugin`) that registers languages, passes,
properties and default pipelines with the framework, the run API (`run`), the CLI hooks (`cli`)
and the fuzzing drivers (`fuzz_target`, `mutants`). The only package that imports all the others."""
