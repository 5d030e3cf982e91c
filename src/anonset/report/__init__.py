"""The release report: what a custodian hands over with a release, as one HTML page and as JSON.

:func:`~anonset.report.contents.build_report` computes every figure the
report shows; :func:`~anonset.report.html.render_html` lays it out as a
self-contained page (inline CSS and SVG plots, nothing fetched);
:func:`~anonset.report.files.report_writer` writes either, by the file's suffix.
"""
