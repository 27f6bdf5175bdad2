{{/* The name of every object of the release. */}}
{{- define "mon.fullname" -}}
{{- if eq .Release.Name "mon" }}mon{{ else }}{{ printf "%s-mon" .Release.Name | trunc 63 | trimSuffix "-" }}{{ end }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "mon.labels" -}}
app.kubernetes.io/name: mon
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The pods' selector. */}}
{{- define "mon.selectorLabels" -}}
app.kubernetes.io/name: mon
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
