{{/* The chart's name: nameOverride, else mon. */}}
{{- define "mon.name" -}}
{{- .Values.nameOverride | default "mon" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of every object of the release: fullnameOverride; else the release name when it already contains the
chart's name (a release called mon, or mon-eu); else <release>-<name>.
*/}}
{{- define "mon.fullname" -}}
{{- if .Values.fullnameOverride }}{{ .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "mon.name" .) .Release.Name }}{{ .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}{{ printf "%s-%s" .Release.Name (include "mon.name" .) | trunc 63 | trimSuffix "-" }}{{ end }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "mon.labels" -}}
app.kubernetes.io/name: {{ include "mon.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The pods' selector. */}}
{{- define "mon.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mon.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* repository:tag, or repository@digest when a digest is set. */}}
{{- define "mon.image" -}}
{{- if .Values.image.digest }}{{ .Values.image.repository }}@{{ .Values.image.digest }}{{ else }}{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}{{ end }}
{{- end }}

{{/* The Secret holding config.yaml. */}}
{{- define "mon.configSecret" -}}
{{- .Values.config.existingSecret | default (printf "%s-config" (include "mon.fullname" .)) }}
{{- end }}

{{/*
The checksum that rolls the pods when the configuration changes: config.values, and with config.existingSecret
or config.credentialSecrets the data of those Secrets as the cluster holds them at install or upgrade (lookup;
empty under helm template, which has no cluster).
*/}}
{{- define "mon.configChecksum" -}}
{{- $secrets := list -}}
{{- with .Values.config.existingSecret }}{{ $secrets = append $secrets . }}{{ end -}}
{{- range .Values.config.credentialSecrets }}{{ $secrets = append $secrets . }}{{ end -}}
{{- $data := list (include "mon.configValues" .) -}}
{{- range $secrets }}{{ $data = append $data (toYaml (lookup "v1" "Secret" $.Release.Namespace .).data) }}{{ end -}}
{{- join "\n" $data | sha256sum -}}
{{- end }}

{{/*
The Secret holding the diagnostics token when incidentsPage.enabled, mounted for its ${file:} reference.
*/}}
{{- define "mon.diagnosticsSecret" -}}
{{- printf "%s-diagnostics" (include "mon.fullname" .) }}
{{- end }}

{{/*
config.values as mon reads them: with incidentsPage.enabled, healthCheck.diagnostics on, its token the
generated Secret's (an explicit healthCheck.diagnostics in config.values wins).
*/}}
{{- define "mon.configValues" -}}
{{- $values := deepCopy .Values.config.values -}}
{{- if .Values.incidentsPage.enabled -}}
{{- $token := printf "${file:/etc/mon/secrets/%s/token}" (include "mon.diagnosticsSecret" .) -}}
{{- $page := dict "healthCheck" (dict "enabled" true "diagnostics" (dict "enabled" true "token" $token)) -}}
{{- $values = mergeOverwrite $page $values -}}
{{- end -}}
{{- toYaml $values -}}
{{- end }}
