"""The app's plain model of an authoring session: no Textual, no labelling rules.

``session`` (the ``AuthoringSession`` the screens share), ``drafts`` (records being
edited), ``preview`` (one locator resolved live, and the status words), ``marks`` (what the document
view marks for it, and the nudges), ``structure`` (what the document view styles), ``filters`` (the question list's filter), ``search``
(the editor's corpus search), ``saving`` (save, rebuild, journal), ``conflicts`` (the file
changed on disk too: the record-by-record merge a save makes), ``stale`` (labels a corpus
change broke) and ``drilldown`` (the eval tab's views).
"""
