"""What a reviewer reads besides the diff: cost tables (`costs`), charts as data drawn as Mermaid or inline SVG
(`charts`), and the one self-contained HTML page of a summary or a diff (`page`), from a run's jobs
(`validation.requests`) and costs (`validation.cost`). No Kubernetes rule is decided here."""
