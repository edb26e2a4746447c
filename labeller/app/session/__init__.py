"""The app's plain model of an authoring session: no Textual, no labelling rules.

``session`` (the ``AuthoringSession`` the screens share), ``drafts`` (records being
edited), ``preview`` (one locator resolved live, and the status words), ``structure``
(what the document view styles), ``filters`` (the question list's filter), ``search``
(the editor's corpus search), ``saving`` (save, conflict, rebuild, journal), ``stale``
(labels a corpus change broke) and ``drilldown`` (the eval tab's views).
"""
