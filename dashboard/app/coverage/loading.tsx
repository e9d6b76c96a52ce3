// The page's loading state (ui/page/Loading.tsx says when a route has one).
export { PageLoading as default } from '@/ui/page/Loading';
