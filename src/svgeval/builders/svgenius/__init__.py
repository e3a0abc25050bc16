"""SVGenius case builders: :func:`~svgeval.builders.svgenius.bug_injector.build_bugfix_cases`,
:func:`~svgeval.builders.svgenius.optimize_generator.build_optimize_cases`,
:func:`~svgeval.builders.svgenius.style_edit_generator.build_style_edit_cases` and
:func:`~svgeval.builders.svgenius.qa_generation.generate_qa_items`; ``svgeval svgenius ...``
runs them (:mod:`~svgeval.builders.svgenius.cli`). See docs/generators.md."""
